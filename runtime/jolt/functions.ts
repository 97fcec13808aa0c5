/**
 * The modify-*-beta function library (`"key": "=toUpper"`, `"=concat(@(1,a),'-',^b)"`), following the
 * stock function table of bazaarvoice/jolt's Modifier and its argument conventions (single-value,
 * list, and "special first argument" functions). A function takes the evaluated arguments and returns
 * a value, or NONE when it has nothing to write (Jolt's Optional.empty). JS has one number type, so
 * Java's int/long/double distinctions are approximated: integral numbers count as int (or long).
 */
import {
  isMap,
  javaIntValue,
  javaLongValue,
  javaToString,
  jsonEquals,
  kindOf,
  MAX_DEPTH,
  numberValue,
  roundHalfUpExact,
  tooDeep,
  toNumber,
  compareUtf16,
  type JsonMap,
} from './java.js';
import {
  compileRegex,
  javaSplit as splitOnPattern,
  patternRefused,
  RegexSyntaxError,
  type Re2Pattern,
} from '../regex/index.js';

/** "Nothing to write": the absent result of a function or of a failed lookup. */
export const NONE: unique symbol = Symbol('jolt.none');

export type ModifyFunction = (args: readonly unknown[]) => unknown;

type Single = (arg: unknown) => unknown;
type ListFn = (list: readonly unknown[]) => unknown;

/** BaseFunction dispatch: one list argument or many arguments → list form; one scalar → single form. */
function base(applyList: ListFn, applySingle: Single): ModifyFunction {
  return (args) => {
    if (args.length === 0) return NONE;
    if (args.length === 1) {
      const only = args[0];
      if (Array.isArray(only)) return only.length === 0 ? NONE : applyList(only);
      if (only === null || only === undefined) return NONE;
      return applySingle(only);
    }
    return applyList(args);
  };
}

/** SingleFunction: applied to each element of a list, keeping elements it cannot convert. */
function single(applySingle: Single): ModifyFunction {
  return base(
    (list) =>
      list.map((e) => {
        const r = applySingle(e);
        return r === NONE ? e : r;
      }),
    applySingle,
  );
}

function listOnly(applyList: ListFn): ModifyFunction {
  return base(applyList, () => NONE);
}

type Special<S> = (v: unknown) => v is S;

/** ArgDrivenFunction: the first argument configures (separator, index, width…), the rest is data. */
function argDriven<S>(
  isSpecial: Special<S>,
  applyList: (special: S, list: readonly unknown[]) => unknown,
  applySingle: (special: S, arg: unknown) => unknown,
): ModifyFunction {
  return (given) => {
    const args = given.length === 1 && Array.isArray(given[0]) ? (given[0] as unknown[]) : given;
    if (args.length < 2 || !isSpecial(args[0])) return NONE;
    const special = args[0];
    if (args.length === 2) {
      const second = args[1];
      return Array.isArray(second) ? applyList(special, second) : applySingle(special, second);
    }
    return applyList(special, args.slice(1));
  };
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => typeof v === 'number' && kindOf(v) === 'int';
const isIntegral = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function onString(f: (s: string) => unknown): Single {
  return (arg) => (typeof arg === 'string' ? f(arg) : NONE);
}

/** Java String.trim: strips characters up to U+0020 at both ends. */
function javaTrim(s: string): string {
  return s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

function join(separator: string, list: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const arg = list[i];
    if (arg === null || arg === undefined) continue;
    const text = javaToString(arg);
    if (text === '') continue;
    out += text;
    if (i < list.length - 1) out += separator;
  }
  return out;
}

/**
 * Java String.split(regex) on RE2 (runtime/regex): linear time whatever the separator. A separator
 * written in the spec is checked at build time; one read from the data that RE2 cannot run fails
 * the transform with 422.
 */
function javaSplit(separator: string, source: unknown): unknown {
  if (typeof source !== 'string') return NONE;
  let pattern: Re2Pattern;
  try {
    pattern = compileRegex(separator, 'java');
  } catch (err) {
    if (err instanceof RegexSyntaxError) throw patternRefused('=split', separator, err);
    throw err;
  }
  return splitOnPattern(pattern, source);
}

function pad(left: boolean, source: string, args: readonly unknown[]): unknown {
  const width = args[0];
  const filler = args[1];
  if (!isInt(width) || typeof filler !== 'string') return NONE;
  if (width <= 0 || width > 500 || filler.length !== 1) return NONE;
  if (width <= source.length) return source;
  const padding = filler.repeat(width - source.length);
  return left ? padding + source : source + padding;
}

function substring(list: readonly unknown[]): unknown {
  if (list.length !== 3) return NONE;
  const [text, start, end] = list;
  if (typeof text !== 'string' || !isInt(start) || !isInt(end)) return NONE;
  if (start >= end || start < 0 || end < 1 || end > text.length) return NONE;
  return text.substring(start, end);
}

/** Math.min / Math.max of Jolt: per-type accumulators and its int-first result rule. */
function extreme(list: readonly unknown[], wantMax: boolean): unknown {
  const sign = wantMax ? 1 : -1;
  let bestInt = wantMax ? -2147483648 : 2147483647;
  let bestLong = wantMax ? -9223372036854775808 : 9223372036854775807;
  let bestDouble = wantMax ? -Number.MAX_VALUE : Number.MAX_VALUE;
  let found = false;
  const better = (a: number, b: number): number => (sign * (a - b) > 0 ? a : b);
  for (const arg of list) {
    const n = typeof arg === 'number' || typeof arg === 'string' ? toNumber(arg) : undefined;
    if (n === undefined) continue;
    found = true;
    if (n.kind === 'int') bestInt = better(n.value, bestInt);
    else if (n.kind === 'long') bestLong = better(n.value, bestLong);
    else bestDouble = better(n.value, bestDouble);
  }
  if (!found) return NONE;
  const doubleAsLong = javaLongValue(bestDouble);
  if (sign * (bestInt - doubleAsLong) >= 0 && sign * (bestInt - bestLong) >= 0) return bestInt;
  if (sign * (bestLong - doubleAsLong) >= 0) return bestLong;
  return bestDouble;
}

function abs(arg: unknown): unknown {
  if (typeof arg === 'number') return Math.abs(arg);
  if (typeof arg === 'string') {
    const n = toNumber(arg);
    return n === undefined ? NONE : Math.abs(n.value);
  }
  return NONE;
}

// The list functions below are separate top-level functions (not closures made by one factory), so
// that each has type feedback of its own and a call site can use it directly (see LIST_FORMS).

function concatList(list: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    if (e !== null && e !== undefined) out += typeof e === 'string' ? e : javaToString(e);
  }
  return out;
}

function doubleSumList(list: readonly unknown[]): number {
  let total = 0;
  for (let i = 0; i < list.length; i++) {
    const n = numberValue(list[i]);
    if (n !== undefined) total += n;
  }
  return total;
}

function intSumList(list: readonly unknown[]): number {
  let total = 0;
  for (let i = 0; i < list.length; i++) {
    const n = numberValue(list[i]);
    if (n !== undefined) total += javaIntValue(n);
  }
  return javaIntValue(total);
}

function longSumList(list: readonly unknown[]): number {
  let total = 0;
  for (let i = 0; i < list.length; i++) {
    const n = numberValue(list[i]);
    if (n !== undefined) total += javaLongValue(n);
  }
  return total;
}

function avgList(list: readonly unknown[]): unknown {
  let total = 0;
  let count = 0;
  for (let i = 0; i < list.length; i++) {
    const n = numberValue(list[i]);
    if (n === undefined) continue;
    total += n;
    count++;
  }
  return count === 0 ? NONE : total / count;
}

function divide(list: readonly unknown[]): unknown {
  if (list.length !== 2) return NONE;
  const numerator = numberValue(list[0]);
  const denominator = numberValue(list[1]);
  if (numerator === undefined || denominator === undefined || denominator === 0) return NONE;
  return numerator / denominator;
}

function multiply(list: readonly unknown[]): unknown {
  if (list.length !== 2) return NONE;
  const a = numberValue(list[0]);
  const b = numberValue(list[1]);
  if (a === undefined || b === undefined) return NONE;
  const x = javaLongValue(a);
  const y = javaLongValue(b);
  if (y === 0) return NONE;
  return javaIntValue(x * y);
}

function subtract(list: readonly unknown[], accepts: (v: unknown) => v is number): unknown {
  if (list.length !== 2) return NONE;
  const [a, b] = list;
  return accepts(a) && accepts(b) ? a - b : NONE;
}

function toNumberWith(convert: (n: number) => number): Single {
  return (arg) => {
    const n = numberValue(arg);
    return n === undefined ? NONE : convert(n);
  };
}

function toBoolean(arg: unknown): unknown {
  if (typeof arg === 'boolean') return arg;
  if (typeof arg === 'string') {
    const lower = arg.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return NONE;
}

function size(args: readonly unknown[]): unknown {
  if (args.length === 0) return NONE;
  if (args.length > 1) return args.length;
  const only = args[0];
  if (Array.isArray(only)) return only.length;
  if (typeof only === 'string') return only.length;
  if (isMap(only)) return Object.keys(only).length;
  return NONE;
}

function squashNulls(value: unknown): void {
  if (Array.isArray(value)) {
    let w = 0;
    for (const e of value) if (e !== null && e !== undefined) value[w++] = e;
    value.length = w;
  } else if (isMap(value)) {
    for (const k of Object.keys(value)) if (value[k] === null) delete value[k];
  }
}

function squashNullsDeep(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw tooDeep('recursivelySquashNulls');
  squashNulls(value);
  if (Array.isArray(value)) for (const e of value) squashNullsDeep(e, depth + 1);
  else if (isMap(value)) for (const k of Object.keys(value)) squashNullsDeep((value as JsonMap)[k], depth + 1);
}

/** Squashing functions change the list or map they are given and return it. */
function squashing(squash: (value: unknown) => void): (value: unknown) => unknown {
  return (value) => {
    squash(value);
    return value;
  };
}

function squashDuplicates(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const kept: unknown[] = [];
  for (const e of value) if (!kept.some((k) => jsonEquals(k, e))) kept.push(e);
  value.length = 0;
  value.push(...kept);
  return value;
}

/** Arrays.sort of Comparables: all strings or all numbers (or all booleans); mixed types fail. */
function sortList(list: readonly unknown[]): unknown {
  if (list.every((e) => typeof e === 'string')) return [...(list as string[])].sort(compareUtf16);
  if (list.every((e) => typeof e === 'number')) return [...(list as number[])].sort((a, b) => a - b);
  if (list.every((e) => typeof e === 'boolean')) return [...(list as boolean[])].sort((a, b) => Number(a) - Number(b));
  return NONE;
}

const isNumberValue = (v: unknown): boolean => typeof v === 'number';

function typeTest(test: (v: unknown) => boolean): ModifyFunction {
  return (args) => (args.length === 0 ? NONE : test(args[0]));
}

/**
 * Stock functions that return (part of) their argument list itself, so a caller must give them a
 * list of their own: `toList(a, b)` returns its arguments, the squash functions change the list in
 * place and return it. Every other stock function only reads the list during the call, which lets
 * generated code reuse one list per call site instead of allocating one per call.
 */
export const KEEPS_ARGUMENTS: ReadonlySet<string> = new Set([
  'toList',
  'squashNulls',
  'recursivelySquashNulls',
  'squashDuplicates',
]);

/** An empty argument list to share (frozen: no stock function changes a list it is given). */
export const NO_ARGUMENTS: readonly unknown[] = Object.freeze([]);

/** The stock function table, by the names specs use after `=`. */
export const FUNCTIONS: Readonly<Record<string, ModifyFunction>> = Object.freeze({
  toLower: single(onString((s) => s.toLowerCase())),
  toUpper: single(onString((s) => s.toUpperCase())),
  trim: single(onString(javaTrim)),
  concat: listOnly(concatList),
  join: argDriven(isString, join, () => NONE),
  split: argDriven(
    isString,
    (sep, list) =>
      list.map((e) => {
        const r = javaSplit(sep, e);
        return r === NONE ? e : r;
      }),
    javaSplit,
  ),
  substring: listOnly(substring),
  leftPad: argDriven(
    isString,
    (source, args) => pad(true, source, args),
    () => NONE,
  ),
  rightPad: argDriven(
    isString,
    (source, args) => pad(false, source, args),
    () => NONE,
  ),

  min: base(
    (list) => extreme(list, false),
    (arg) => (typeof arg === 'number' ? arg : NONE),
  ),
  max: base(
    (list) => extreme(list, true),
    (arg) => (typeof arg === 'number' ? arg : NONE),
  ),
  abs: single(abs),
  avg: listOnly(avgList),
  intSum: listOnly(intSumList),
  doubleSum: listOnly(doubleSumList),
  longSum: listOnly(longSumList),
  intSubtract: listOnly((list) => subtract(list, isInt)),
  doubleSubtract: listOnly((list) => subtract(list, (v): v is number => typeof v === 'number')),
  longSubtract: listOnly((list) => subtract(list, isIntegral)),
  divide: listOnly(divide),
  divideAndRound: argDriven(
    isInt,
    (digits, list) => {
      const r = divide(list);
      return r === NONE ? NONE : roundHalfUpExact(r as number, digits);
    },
    () => NONE,
  ),
  multiply: listOnly(multiply),

  toInteger: single(toNumberWith(javaIntValue)),
  toLong: single(toNumberWith(javaLongValue)),
  toDouble: single(toNumberWith((n) => n)),
  toBoolean: single(toBoolean),
  toString: single((arg) => javaToString(arg)),
  toJsonString: (args) => (args.length === 0 ? NONE : JSON.stringify(args[0] ?? null)),
  size,

  squashNulls: base(
    squashing((v) => squashNulls(v)),
    squashing((v) => squashNulls(v)),
  ),
  recursivelySquashNulls: base(
    squashing((v) => squashNullsDeep(v, 0)),
    squashing((v) => squashNullsDeep(v, 0)),
  ),
  squashDuplicates: (args) => (args.length === 1 && Array.isArray(args[0]) ? squashDuplicates(args[0]) : NONE),

  noop: () => NONE,
  isPresent: (args) => (args.length === 0 ? NONE : args[0]),
  notNull: (args) => (args.length === 0 || args[0] === null || args[0] === undefined ? NONE : args[0]),
  isNull: (args) => (args.length === 0 || (args[0] !== null && args[0] !== undefined) ? NONE : null),

  isString: typeTest((v) => typeof v === 'string'),
  isNumber: typeTest(isNumberValue),
  isBoolean: typeTest((v) => typeof v === 'boolean'),
  isList: typeTest((v) => Array.isArray(v)),
  isMap: typeTest(isMap),

  firstElement: listOnly((list) => (list.length > 0 ? list[0] : NONE)),
  lastElement: listOnly((list) => (list.length > 0 ? list[list.length - 1] : NONE)),
  elementAt: argDriven(
    isInt,
    (index, list) => (index >= 0 && list.length > index ? list[index] : NONE),
    () => NONE,
  ),
  toList: base(
    (list) => list,
    (arg) => [arg],
  ),
  sort: base(sortList, (arg) => arg),
});

// ───────────────── Positional forms for generated call sites ─────────────────
// A spec's call has a fixed number of arguments, so generated code can skip the dispatch on the
// argument count and the argument list. Each form below handles the common argument types itself
// and hands every other case to the table function, so its result is always the same as calling
// FUNCTIONS[name] with the arguments in a list (compiler/jolt tests check this over many values).

type OneForm = (a: unknown) => unknown;
type TwoForm = (a: unknown, b: unknown) => unknown;

function stock(name: string): ModifyFunction {
  const fn = FUNCTIONS[name];
  if (fn === undefined) throw new Error(`no stock function ${name}`);
  return fn;
}

const toUpperTable = stock('toUpper');
const toLowerTable = stock('toLower');
const trimTable = stock('trim');
const sizeTable = stock('size');
const absTable = stock('abs');
const toIntegerTable = stock('toInteger');
const toLongTable = stock('toLong');
const toDoubleTable = stock('toDouble');
const toStringTable = stock('toString');
const doubleSumTable = stock('doubleSum');
const divideTable = stock('divide');
const concatTable = stock('concat');

/** `=fn(a)` / `"key": "=fn"` with a present argument `a`: the same as FUNCTIONS[name]([a]). */
export const ONE_ARGUMENT_FORMS: Readonly<Record<string, OneForm>> = Object.freeze({
  toUpper: (a: unknown) => (typeof a === 'string' ? a.toUpperCase() : toUpperTable([a])),
  toLower: (a: unknown) => (typeof a === 'string' ? a.toLowerCase() : toLowerTable([a])),
  trim: (a: unknown) => (typeof a === 'string' ? javaTrim(a) : trimTable([a])),
  size: (a: unknown) => (Array.isArray(a) || typeof a === 'string' ? a.length : sizeTable([a])),
  abs: (a: unknown) => (typeof a === 'number' ? Math.abs(a) : absTable([a])),
  toInteger: (a: unknown) => (typeof a === 'number' ? javaIntValue(a) : toIntegerTable([a])),
  toLong: (a: unknown) => (typeof a === 'number' ? javaLongValue(a) : toLongTable([a])),
  toDouble: (a: unknown) => (typeof a === 'number' ? a : toDoubleTable([a])),
  toString: (a: unknown) => (typeof a === 'string' ? a : toStringTable([a])),
});

/** `=fn(a,b)` with absent arguments given as null: the same as FUNCTIONS[name]([a, b]). */
export const TWO_ARGUMENT_FORMS: Readonly<Record<string, TwoForm>> = Object.freeze({
  // 0 + a + b, not a + b: the list form starts its total at 0 (which turns -0 into 0)
  doubleSum: (a: unknown, b: unknown) =>
    typeof a === 'number' && typeof b === 'number' ? 0 + a + b : doubleSumTable([a, b]),
  divide: (a: unknown, b: unknown) =>
    typeof a === 'number' && typeof b === 'number' ? (b === 0 ? NONE : a / b) : divideTable([a, b]),
  concat: (a: unknown, b: unknown) => (typeof a === 'string' && typeof b === 'string' ? a + b : concatTable([a, b])),
});

/** Functions whose result for two or more arguments is their list form applied to the arguments. */
export const LIST_FORMS: Readonly<Record<string, (list: readonly unknown[]) => unknown>> = Object.freeze({
  concat: concatList,
  doubleSum: doubleSumList,
  intSum: intSumList,
  longSum: longSumList,
  avg: avgList,
  divide,
  multiply,
  substring,
});
