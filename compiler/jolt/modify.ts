/**
 * Modifier (`modify-overwrite-beta`, `modify-default-beta`, `modify-define-beta`) to JavaScript.
 * The spec mirrors the input; a leaf computes a value (a literal, `@(…)` from the input, `^…` from the
 * context, or `=function(args)`) and writes it where the mode allows: overwrite always, default only
 * over null/absent, define only when absent. Keys may carry their own mode prefix (`+`, `~`, `_`) and
 * a trailing `?` (only when the key exists). Objects are created on the way; `[n]` keys grow lists.
 */
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, Program, isPlainObject, plainKey, splitOr } from './emit.js';
import { canonicalOf, isStar, parseDotPath, parseKey, type PathElement, SpecError, type Transpose } from './keys.js';
import { compareUtf16, parseJavaDouble, parseJavaInt, parseJavaLong } from '../../runtime/jolt/java.js';
import {
  FUNCTIONS,
  KEEPS_ARGUMENTS,
  LIST_FORMS,
  ONE_ARGUMENT_FORMS,
  TWO_ARGUMENT_FORMS,
} from '../../runtime/jolt/functions.js';
import { OWN_KEY, readExpr, readPathExpr, Scope } from './walk.js';
import { regexProblem } from '../../runtime/regex/index.js';
import * as E from './errors.js';

export type ModifyMode = 0 | 1 | 2;
const MODE_PREFIX: Record<string, ModifyMode> = { '+': 0, '~': 1, _: 2 };

interface Child {
  readonly pe: PathElement;
  readonly mode: ModifyMode;
  readonly checkValue: boolean;
  readonly rhs: unknown;
  readonly composite: boolean;
  readonly path: JsonPath;
}

/** Names of functions registered beyond the stock table (custom functions reach code as `X.fn.<name>`). */
export interface ModifyOptions {
  readonly customFunctions: ReadonlySet<string>;
}

/** Compiles a modify spec in `mode`; returns the name of the generated step function `(input, context)`. */
export function compileModify(
  prog: Program,
  spec: unknown,
  path: JsonPath,
  mode: ModifyMode,
  options: ModifyOptions,
): string {
  const fn = prog.name('modify');
  if (!isPlainObject(spec)) {
    prog.error(E.specNotAnObject('modify'), path, 'value');
    return fn;
  }
  const root = new Scope([{ owner: 0, capture: 'none', groups: 0 }], new Map(), prog);
  const rootFn = compileComposite(prog, spec, path, root, 1, mode, options, 0);
  prog.declare(
    [
      `/** ${['modify-overwrite-beta', 'modify-default-beta', 'modify-define-beta'][mode]}: computes values in place. */`,
      `function ${fn}(input, context) {`,
      `  const walked = { root: context === undefined ? null : context };`,
      `  const state = { K: ["root"], C: [undefined], T: [input], O: [-1], cw: walked };`,
      `  ${rootFn}(state, "root", input);`,
      `  return input;`,
      `}`,
    ].join('\n'),
  );
  return fn;
}

/**
 * A modify key's own mode prefix (`+` overwrite, `~` default, `_` define) and `?` suffix (only when
 * the key is present), taken off the key; an escaped `\\?` stays part of it.
 */
export function modifyKey(
  rawKey: string,
  parentMode: ModifyMode,
): { readonly key: string; readonly mode: ModifyMode; readonly onlyIfPresent: boolean } {
  let key = rawKey;
  let mode = parentMode;
  const prefixMode = MODE_PREFIX[key.charAt(0)];
  const suffixed = key.length > 1 && key.endsWith('?');
  if (prefixMode !== undefined) {
    mode = prefixMode;
    key = key.slice(1);
  }
  let onlyIfPresent = false;
  if (suffixed && !key.endsWith('\\?')) {
    onlyIfPresent = true;
    key = key.slice(0, -1);
  }
  return { key, mode, onlyIfPresent };
}

function parseChild(
  prog: Program,
  rawKey: string,
  rhs: unknown,
  path: JsonPath,
  parentMode: ModifyMode,
): Child | undefined {
  const { key, mode, onlyIfPresent: checkValue } = modifyKey(rawKey, parentMode);
  let pe: PathElement;
  try {
    pe = parseKey(key);
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    prog.error(e.problem, path, 'key');
    return undefined;
  }
  if (!isStar(pe) && pe.kind !== 'literal' && pe.kind !== 'array') {
    prog.error(E.badModifyKey(rawKey), path, 'key');
    return undefined;
  }
  if (pe.kind === 'array' && pe.index.type !== 'explicit') {
    prog.error(E.modifyIndexNotExplicit(rawKey), path, 'key');
    return undefined;
  }
  const composite = isPlainObject(rhs) && Object.keys(rhs).length > 0;
  return { pe, mode, checkValue, rhs, composite, path };
}

type DataType = 'map' | 'list' | 'runtime';

function compileComposite(
  prog: Program,
  spec: Record<string, unknown>,
  path: JsonPath,
  outer: Scope,
  level: number,
  mode: ModifyMode,
  options: ModifyOptions,
  depth: number,
): string {
  const fn = prog.name('mod');
  if (depth > MAX_SPEC_DEPTH) {
    prog.error(E.nestedTooDeep(MAX_SPEC_DEPTH), path, 'key');
    prog.declare(`function ${fn}() {}`);
    return fn;
  }
  const children: Child[] = [];
  const seen = new Set<string>();
  let mapKey: Child | undefined;
  let arrayKey: Child | undefined;
  let maxIndex = -1;
  for (const raw of Object.keys(spec)) {
    for (const keyText of splitOr(raw)) {
      const child = parseChild(prog, keyText, spec[raw], [...path, raw], mode);
      if (!child) continue;
      const canonical = canonicalOf(child.pe);
      if (seen.has(canonical)) {
        prog.error(E.sameKeyTwice(keyText), child.path, 'key');
        continue;
      }
      seen.add(canonical);
      if (child.pe.kind === 'array' && child.pe.index.type === 'explicit') {
        arrayKey ??= child;
        if (!child.checkValue) maxIndex = Math.max(maxIndex, child.pe.index.index);
      } else if (child.pe.kind !== 'star-all') mapKey ??= child;
      children.push(child);
    }
  }
  if (mapKey && arrayKey) {
    prog.error(E.listAndMapKeysMixed(canonicalOf(arrayKey.pe), canonicalOf(mapKey.pe)), arrayKey.path, 'key');
  }
  const dataType: DataType = arrayKey ? 'list' : mapKey ? 'map' : 'runtime';
  const literals = children.filter((c) => c.pe.kind === 'literal' || c.pe.kind === 'array');
  const computed = children.filter((c) => isStar(c.pe)).sort(computedCompare);
  const strategy =
    computed.length === 0
      ? 'literals'
      : literals.length === 0
        ? 'computed'
        : mode === 2 && dataType === 'list'
          ? 'conflict'
          : 'both';

  // a list loop may pass the index alone (`key` null): the key's text is made only where it is used
  const scope = outer.enter(level, { owner: level, capture: 'none', groups: 0 }, { key: OWN_KEY, data: 'data' });
  const body = new Lines();
  const walk = new Lines();
  const ctx: Ctx = { prog, scope, level, options, depth, dataIsMap: false };
  if (dataType === 'runtime') {
    body.add(1, `if (data === null || data === undefined) return;`);
    body.add(1, `const size = Array.isArray(data) ? data.length : -1;`);
    walk.add(1, `if (Array.isArray(data)) {`);
    emitStrategy(ctx, walk, 2, strategy, literals, computed, 'list');
    walk.add(1, `} else if (J.isMap(data)) {`);
    emitStrategy({ ...ctx, dataIsMap: true }, walk, 2, strategy, literals, computed, 'map');
    walk.add(1, `}`);
  } else {
    // null or absent: a new container where the mode allows; else one type check, after which
    // `data` (never reassigned below) is known to be a map (a list), so the walk needs no other
    const wrongType = dataType === 'map' ? `typeof data !== "object" || Array.isArray(data)` : `!Array.isArray(data)`;
    body.add(1, `if (data === null || data === undefined) {`);
    body.add(
      2,
      `data = J.mcreate(${scope.slots.slot('T', level - 1)}, ${scope.slots.slot('O', level - 1)}, ${OWN_KEY}, ${mode}, ${dataType === 'list'});`,
    );
    body.add(2, `if (data === null) return;`);
    body.add(1, `} else if (${wrongType}) return;`);
    // a map has no original list size (Modifier's size matters for list indexes only)
    body.add(1, `const size = ${dataType === 'list' ? `J.expand(data, ${maxIndex})` : '-1'};`);
    if (dataType === 'list') emitStrategy(ctx, walk, 1, strategy, literals, computed, 'list');
    else emitStrategy({ ...ctx, dataIsMap: true }, walk, 1, strategy, literals, computed, 'map');
  }
  // the slots of this level, now that every function that could read them has been generated
  const stores = [
    scope.slots.has('K', level) ? `state.K[${level}] = ${OWN_KEY};` : '',
    scope.slots.has('T', level) ? `state.T[${level}] = data;` : '',
    scope.slots.has('O', level) ? `state.O[${level}] = size;` : '',
  ].filter((x) => x !== '');
  body.add(1, stores.join(' '));
  body.addAll(walk);
  prog.declare(
    `/** modify ${path.slice(2).join(' › ') || 'root'} */\nfunction ${fn}(state, key, data, index) {\n${body.toString()}\n}`,
  );
  return fn;
}

interface Ctx {
  readonly prog: Program;
  readonly scope: Scope;
  readonly level: number;
  readonly options: ModifyOptions;
  readonly depth: number;
  /**
   * The code being emitted runs where `data` has been checked to be a map in the same function
   * (and is never reassigned after), so `@(1,key)` reads it with a plain property load.
   */
  readonly dataIsMap: boolean;
}

const STAR_ORDER: Record<string, number> = { 'star-regex': 2, 'star-double': 3, 'star-single': 4, 'star-all': 5 };

function computedCompare(a: Child, b: Child): number {
  const oa = STAR_ORDER[a.pe.kind] ?? 9;
  const ob = STAR_ORDER[b.pe.kind] ?? 9;
  if (oa !== ob) return oa - ob;
  const ca = canonicalOf(a.pe);
  const cb = canonicalOf(b.pe);
  return ca.length !== cb.length ? cb.length - ca.length : compareUtf16(ca, cb);
}

/** Each child object is compiled once although the map and list branches both call it. */
const compiledChildren = new WeakMap<Child, string>();

function literalKeyOf(child: Child): string {
  if (child.pe.kind === 'literal') return child.pe.key;
  if (child.pe.kind === 'array' && child.pe.index.type === 'explicit') return String(child.pe.index.index);
  return '';
}

function emitStrategy(
  ctx: Ctx,
  out: Lines,
  ind: number,
  strategy: string,
  literals: Child[],
  computed: Child[],
  shape: 'map' | 'list',
): void {
  if (strategy === 'literals' || strategy === 'both') {
    for (const child of literals) {
      const key = literalKeyOf(child);
      out.add(ind, `{`);
      const leaf = child.composite ? undefined : leafCode(ctx, child);
      if (leaf !== undefined && !child.checkValue && !usesOwnValue(leaf)) {
        // the leaf computes its value from elsewhere and writes it by the mode alone (mset or, for
        // overwrite into a map, a plain store), so its key's own value is not read
        out.add(ind + 1, `const childKey = ${lit(key)};`);
      } else if (shape === 'map' && plainKey(key)) {
        // JSON values are never undefined, so a defined read of a non-prototype key is an own key
        out.add(ind + 1, `const childKey = ${lit(key)}, found = data[childKey], present = found !== undefined;`);
        out.add(ind + 1, `const childValue = present ? found : null;`);
      } else if (shape === 'map') {
        out.add(ind + 1, `const childKey = ${lit(key)}, present = J.has(data, childKey);`);
        out.add(ind + 1, `const childValue = present ? data[childKey] : null;`);
      } else {
        const index = parseJavaInt(key);
        const i = index === undefined ? 2147483647 : index;
        // present means "in the input": indexes added by growing the list do not count
        out.add(ind + 1, `const childKey = ${lit(key)}, present = ${i} < size;`);
        out.add(ind + 1, `const childValue = ${i} < data.length ? data[${i}] : null;`);
      }
      emitChild(ctx, out, ind + 1, child, undefined, leaf);
      out.add(ind, `}`);
    }
  }
  if (strategy === 'computed' || strategy === 'both' || strategy === 'conflict') {
    // `*` alone over a list into a spec object: the child gets the index and makes its key's text
    // only where it uses it (OWN_KEY), instead of a String(i) per element here
    const [only] = computed;
    const indexOnly =
      strategy === 'computed' && computed.length === 1 && only?.pe.kind === 'star-all' && only.composite;
    const each =
      shape === 'map'
        ? 'for (const childKey of Object.keys(data)) { const present = true, childValue = data[childKey];'
        : indexOnly
          ? 'for (let i = 0; i < data.length; i++) { const childKey = null, present = true, childValue = data[i];'
          : 'for (let i = 0; i < data.length; i++) { const childKey = String(i), present = true, childValue = data[i];';
    out.add(ind, each);
    const index = shape === 'list' && indexOnly ? 'i' : undefined;
    if (strategy === 'conflict') {
      out.add(ind + 1, `switch (childKey) {`);
      for (const child of literals) {
        out.add(ind + 2, `case ${lit(literalKeyOf(child))}: {`);
        emitChild(ctx, out, ind + 3, child);
        out.add(ind + 3, `break;`);
        out.add(ind + 2, `}`);
      }
      out.add(ind + 2, `default: {`);
      emitChain(ctx, out, ind + 3, computed);
      out.add(ind + 2, `}`);
      out.add(ind + 1, `}`);
    } else emitChain(ctx, out, ind + 1, computed, index);
    out.add(ind, `}`);
  }
}

/** `index`: the list loop's index variable, passed to a child spec object that then has no key text. */
function emitChain(ctx: Ctx, out: Lines, ind: number, computed: readonly Child[], index?: string): void {
  const [child, ...rest] = computed;
  if (!child || !isStar(child.pe)) return;
  const pe = child.pe;
  let condition: string;
  if (pe.kind === 'star-all') condition = 'true';
  else if (pe.kind === 'star-single') {
    const affixes = `childKey.startsWith(${lit(pe.prefix)}) && childKey.endsWith(${lit(pe.suffix)})`;
    condition = `childKey.length > ${pe.prefix.length + pe.suffix.length} && ${affixes}`;
  } else if (pe.kind === 'star-double')
    condition = `J.star2(childKey, ${lit(pe.prefix)}, ${lit(pe.mid)}, ${lit(pe.suffix)}) !== null`;
  else {
    const parts = ctx.prog.name('SP');
    ctx.prog.declare(`const ${parts} = ${JSON.stringify(pe.parts)};`);
    condition = `J.starN(childKey, ${parts}) !== null`;
  }
  out.add(ind, `if (${condition}) {`);
  emitChild(ctx, out, ind + 1, child, index);
  if (rest.length > 0) {
    out.add(ind, `} else {`);
    emitChain(ctx, out, ind + 1, rest, index);
  }
  out.add(ind, `}`);
}

/**
 * The child keyed `childKey` (`present`, value `childValue`) of the composite holding `data` (original
 * size `size`); `leaf`: a leaf's code when already made (see leafCode).
 */
function emitChild(ctx: Ctx, out: Lines, ind: number, child: Child, index?: string, leaf?: readonly string[]): void {
  const inner = child.checkValue ? ind + 1 : ind;
  out.add(ind, ctx.prog.specLine(child.path, child.rhs));
  if (child.checkValue) out.add(ind, `if (present) {`);
  if (child.composite) {
    let fn = compiledChildren.get(child);
    if (fn === undefined) {
      fn = compileComposite(
        ctx.prog,
        child.rhs as Record<string, unknown>,
        child.path,
        ctx.scope,
        ctx.level + 1,
        child.mode,
        ctx.options,
        ctx.depth + 1,
      );
      compiledChildren.set(child, fn);
    }
    out.add(inner, `${fn}(state, childKey, childValue${index === undefined ? '' : `, ${index}`});`);
  } else {
    out.addAll(indented(leaf ?? leafCode(ctx, child), inner));
  }
  if (child.checkValue) out.add(ind, `}`);
}

/**
 * A leaf's block (at indent 0): computes `result` from its right-hand side and writes it where the
 * mode allows. It reads its own key's value only through `childValue`, `present` and `leafValue`.
 */
function leafCode(ctx: Ctx, child: Child): string[] {
  const leafLevel = ctx.level + 1;
  const scope = ctx.scope.with(
    leafLevel,
    { owner: leafLevel, capture: 'none', groups: 0 },
    { key: 'childKey', data: 'leafValue', hash: '0' },
  );
  const rhsList = Array.isArray(child.rhs) && child.rhs.length > 0 ? child.rhs : [child.rhs];
  const evaluators: string[] = [];
  rhsList.forEach((rhs, i) => {
    const where = Array.isArray(child.rhs) && child.rhs.length > 0 ? [...child.path, i] : child.path;
    try {
      evaluators.push(...evaluatorLines(ctx, scope, leafLevel, rhs, rhsList.length > 1, where));
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      ctx.prog.error(e.problem, where, 'value');
    }
  });
  // A leaf has no generated children, so its own key and value are read from the locals `childKey`/`leafValue`
  // (see the scope above) and never from the S slots: no slot stores here.
  const lines = [`{`];
  if (evaluators.some((line) => mentions(line, 'leafValue')))
    lines.push(`  const leafValue = present ? childValue : null;`);
  lines.push(`  let result = J.N;`);
  evaluators.forEach((line, i) => lines.push(`  ${i === 0 ? line : `if (result === J.N) { ${line} }`}`));
  if (ctx.dataIsMap && child.mode === 0 && child.pe.kind === 'literal' && plainKey(child.pe.key)) {
    lines.push(`  if (result !== J.N) data[childKey] = result;`);
  } else lines.push(`  if (result !== J.N) J.mset(data, size, childKey, result, ${child.mode});`);
  lines.push(`}`);
  return lines;
}

/** Whether generated `code` uses the identifier `name` (outside string literals, not as a property). */
function mentions(code: string, name: string): boolean {
  const bare = code.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return new RegExp(`(?<![.\\w$])${name}(?![\\w$])`).test(bare);
}

/** Whether a leaf's code reads its own key's value or presence. */
function usesOwnValue(code: readonly string[]): boolean {
  return code.some((line) => mentions(line, 'childValue') || mentions(line, 'present') || mentions(line, 'leafValue'));
}

function indented(lines: readonly string[], ind: number): Lines {
  const out = new Lines();
  for (const line of lines) out.add(ind, line);
  return out;
}

/** One statement assigning `result` for one right-hand side (string expression or literal). */
function evaluatorLines(
  ctx: Ctx,
  scope: Scope,
  level: number,
  rhs: unknown,
  fallbacks: boolean,
  where: JsonPath,
): string[] {
  if (typeof rhs !== 'string') return [`result = ${ctx.prog.freshValue(rhs)};`];
  if (!rhs.startsWith('=')) return [`result = ${argExpr(ctx, scope, level, rhs, false).source};`];
  const text = rhs.slice(1);
  if (!text.includes('(') && !text.endsWith(')')) {
    return [callOne(ctx, functionRef(ctx, text, fallbacks, where), 'childValue', 'present')];
  }
  const open = text.indexOf('(');
  if (open < 0 || !text.endsWith(')')) throw new SpecError(E.unparsableFunctionCall(rhs));
  const fn = functionRef(ctx, text.slice(0, open), fallbacks, where);
  const rawArgs = splitFunctionArgs(text.slice(open + 1, -1));
  if (fn.stock === 'split' && rawArgs[0] !== undefined) checkSplitSeparator(ctx, rawArgs[0], where);
  const args = rawArgs.map((a) => argExpr(ctx, scope, level, a, true));
  const [only] = args;
  if (only !== undefined && args.length === 1) {
    return [`{ const arg = ${only.source}; ${callOne(ctx, fn, 'arg', `arg !== ${only.absent}`)} }`];
  }
  return [callMany(ctx, fn, args)];
}

/** A separator written in the spec runs on RE2 like every pattern: what RE2 cannot run is an error here. */
function checkSplitSeparator(ctx: Ctx, raw: string, where: JsonPath): void {
  if (raw.startsWith('^') || raw.startsWith('@') || raw === '') return;
  const separator = raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'") ? raw.slice(1, -1) : raw;
  const problem = regexProblem(separator, 'java');
  if (problem === undefined) return;
  if (problem.needsBacktracking) {
    ctx.prog.error(E.splitNeedsBacktracking(JSON.stringify(separator), problem.message), where, 'value');
  } else {
    ctx.prog.error(E.splitNotARegex(JSON.stringify(separator), problem.message), where, 'value');
  }
}

/** A function reference: its source, its stock name, whether a call site may reuse one argument list. */
interface FunctionRef {
  readonly source: string;
  /** The stock function's name (undefined for custom functions). */
  readonly stock?: string;
  readonly reusesArguments: boolean;
}

function has(table: object, name: string | undefined): boolean {
  return name !== undefined && Object.prototype.hasOwnProperty.call(table, name);
}

/** `result = fn([value])` when `present`, else `r = fn([])`, without allocating for stock functions. */
function callOne(ctx: Ctx, fn: FunctionRef, value: string, present: string): string {
  if (fn.stock !== undefined && has(ONE_ARGUMENT_FORMS, fn.stock)) {
    const call = inlineOne(fn.stock, value) ?? `J.F1.${fn.stock}(${value})`;
    return `if (${present}) result = ${call}; else result = ${fn.source}(J.E);`;
  }
  if (!fn.reusesArguments) return `result = ${present} ? ${fn.source}([${value}]) : ${fn.source}([]);`;
  const list = ctx.prog.argumentList(['null']);
  // the list is cleared after the call so that it does not keep the input alive
  const call = `${list}[0] = ${value}; result = ${fn.source}(${list}); ${list}[0] = null;`;
  return `if (${present}) { ${call} } else result = ${fn.source}(J.E);`;
}

/**
 * The usual case of a one-argument stock function written out (`a` a variable or literal), the rest
 * through the same J.F1 form: as direct as hand-written code where the types are the expected ones.
 */
function inlineOne(stock: string, a: string): string | undefined {
  switch (stock) {
    case 'toUpper':
      return `(typeof ${a} === "string" ? ${a}.toUpperCase() : J.F1.toUpper(${a}))`;
    case 'toLower':
      return `(typeof ${a} === "string" ? ${a}.toLowerCase() : J.F1.toLower(${a}))`;
    case 'size':
      return `(Array.isArray(${a}) || typeof ${a} === "string" ? ${a}.length : J.F1.size(${a}))`;
    default:
      return undefined;
  }
}

/** The same for two-argument forms (see TWO_ARGUMENT_FORMS): numbers and strings inline. */
function inlineTwo(stock: string, a: string, b: string): string | undefined {
  // a number literal argument (the spec's `100`) needs no test
  const numberLiteral = (x: string): boolean => /^-?\d/.test(x) && Number.isFinite(Number(x));
  const numbers = [a, b].filter((x) => !numberLiteral(x)).map((x) => `typeof ${x} === "number"`);
  const nonZero = numberLiteral(b) && Number(b) !== 0 ? [] : [`${b} !== 0`];
  switch (stock) {
    case 'doubleSum':
      // 0 + a + b, as the list form (its total starts at 0, which turns -0 into 0)
      return `(${numbers.join(' && ') || 'true'} ? 0 + ${a} + ${b} : J.F2.doubleSum(${a}, ${b}))`;
    case 'divide':
      return `(${[...numbers, ...nonZero].join(' && ') || 'true'} ? ${a} / ${b} : J.F2.divide(${a}, ${b}))`;
    case 'concat':
      return `(typeof ${a} === "string" && typeof ${b} === "string" ? ${a} + ${b} : J.F2.concat(${a}, ${b}))`;
    default:
      return undefined;
  }
}

/** `result = fn([a, b, …])` (absent values become null), through a positional form or a reused list. */
function callMany(ctx: Ctx, fn: FunctionRef, args: readonly Arg[]): string {
  if (!fn.reusesArguments) {
    // J.args turns J.N into null; a direct read gives undefined, which `?? null` turns (null stays null)
    const values = args.map((a) => (a.absent === 'J.N' ? a.source : `(${a.source} ?? null)`));
    return `result = ${fn.source}(J.args([${values.join(', ')}]));`;
  }
  const [first, second] = args;
  if (args.length === 2 && first && second && fn.stock !== undefined && has(TWO_ARGUMENT_FORMS, fn.stock)) {
    // each argument read once, absent (J.N) as null
    const reads = [first, second].flatMap((a, i) =>
      a.constant ? [] : [`const r${i} = ${a.source}, x${i} = r${i} === ${a.absent} ? null : r${i};`],
    );
    const [a, b] = [first, second].map((arg, i) => (arg.constant ? arg.source : `x${i}`)) as [string, string];
    const call = inlineTwo(fn.stock, a, b) ?? `J.F2.${fn.stock}(${a}, ${b})`;
    return `{ ${reads.join(' ')} result = ${call}; }`;
  }
  const callee = has(LIST_FORMS, fn.stock) ? `J.FL.${fn.stock}` : fn.source;
  // literal arguments are filled in once; the others are set before and cleared after each call
  const list = ctx.prog.argumentList(args.map((a) => (a.constant ? a.source : 'null')));
  const fill: string[] = [];
  const clear: string[] = [];
  const stringConcat = fn.stock === 'concat' && args.every((a) => !a.constant || a.source.startsWith('"'));
  args.forEach((a, i) => {
    if (a.constant) return;
    fill.push(`${list}[${i}] = x${i} === ${a.absent} ? null : x${i};`);
    clear.push(`${list}[${i}] = null;`);
  });
  const reads = args.flatMap((a, i) => (a.constant ? [] : [`const x${i} = ${a.source};`]));
  const call = `${fill.join(' ')} result = ${callee}(${list}); ${clear.join(' ')}`;
  if (!stringConcat) return `{ ${reads.join(' ')} ${call} }`;
  // concat of strings (the usual case) is `+`; anything else (null, numbers, absent) goes through the list form
  const strings = args.flatMap((a, i) => (a.constant ? [] : [`typeof x${i} === "string"`]));
  const sum = args.map((a, i) => (a.constant ? a.source : `x${i}`)).join(' + ');
  return `{ ${reads.join(' ')} if (${strings.join(' && ') || 'true'}) result = ${sum}; else { ${call} } }`;
}

function functionRef(ctx: Ctx, name: string, fallbacks: boolean, where: JsonPath): FunctionRef {
  if (ctx.options.customFunctions.has(name)) return { source: `X.fn[${lit(name)}]`, reusesArguments: false };
  if (has(FUNCTIONS, name)) return { source: `J.F.${name}`, stock: name, reusesArguments: !KEEPS_ARGUMENTS.has(name) };
  const known = Object.keys(FUNCTIONS);
  const near = known.filter(
    (k) => k.toLowerCase() === name.toLowerCase() || k.toLowerCase().startsWith(name.toLowerCase().slice(0, 3)),
  );
  if (!fallbacks) throw new SpecError(E.unknownFunction(name, near, false));
  // In a fallback list Jolt skips an unknown function; keep that behaviour but say so.
  ctx.prog.warning(E.unknownFunction(name, near, true), where, 'value');
  return { source: 'J.F.noop', stock: 'noop', reusesArguments: true };
}

/** SpecStringParser.parseFunctionArgs: commas split arguments outside `(…)` and `'…'`. */
function splitFunctionArgs(text: string): string[] {
  const args: string[] = [];
  let current = '';
  let inParens = false;
  let inQuotes = false;
  for (const c of text) {
    if (c === '(' && !inQuotes) inParens = true;
    else if (c === ')' && !inQuotes) inParens = false;
    else if (c === "'") inQuotes = !inQuotes;
    else if (c === ',' && !inParens && !inQuotes) {
      args.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  args.push(current.trim());
  return args;
}

/** An argument: `^ctx.path`, `@(…)` from the input, or a literal ('quoted', number, boolean, text). */
/** An argument's JS source; `constant` when it is a literal (the same on every call). */
interface Arg {
  readonly source: string;
  readonly constant: boolean;
  /**
   * What `source` gives for an absent value: J.N from the general readers, `undefined` from a plain
   * property load of a map the function has already checked (see directRead).
   */
  readonly absent: 'J.N' | 'undefined';
}

function argExpr(ctx: Ctx, scope: Scope, level: number, arg: string, parse: boolean): Arg {
  if (arg.startsWith('^')) {
    const path = parseDotPath(`root.${arg.slice(1)}`);
    return { source: readPathExpr(scope, level, 'state.cw', path), constant: false, absent: 'J.N' };
  }
  if (arg.startsWith('@')) {
    const path = parseDotPath(`root.${arg}`);
    const last = path[path.length - 1];
    if (!last || last.kind !== 'transpose') throw new SpecError(E.notOneTranspose(arg));
    // only function arguments (`parse`): every call site of those says what absent is (Arg.absent)
    const direct = parse ? directRead(ctx, scope, level, last.transpose) : undefined;
    if (direct !== undefined) return { source: direct, constant: false, absent: 'undefined' };
    return { source: readExpr(scope, level, last.transpose), constant: false, absent: 'J.N' };
  }
  return { source: literalArg(arg, parse), constant: true, absent: 'J.N' };
}

/**
 * `@(n,key)` of the composite's own `data` where the code runs after `data` was checked to be a map
 * (ctx.dataIsMap): a plain property load, undefined when absent, instead of a reader that checks
 * the type again. Only a plain key (no inherited name, which a property load would find) and one step.
 */
function directRead(ctx: Ctx, scope: Scope, level: number, t: Transpose): string | undefined {
  const [step, ...deeper] = t.sub ?? [];
  if (!ctx.dataIsMap || step?.kind !== 'literal' || deeper.length > 0 || !plainKey(step.key)) return undefined;
  if (scope.dataOf(level, t.upLevel, `\`@(${t.upLevel},…)\``) !== 'data') return undefined;
  return `data[${lit(step.key)}]`;
}

function literalArg(arg: string, parse: boolean): string {
  if (!parse) return lit(arg);
  if (arg.length === 0) return 'null';
  if (arg.length >= 2 && arg.startsWith("'") && arg.endsWith("'")) return lit(arg.slice(1, -1));
  if (arg.toLowerCase() === 'true' || arg.toLowerCase() === 'false') return String(arg.toLowerCase() === 'true');
  const n = parseJavaInt(arg) ?? parseJavaLong(arg) ?? parseJavaDouble(arg);
  return n !== undefined && Number.isFinite(n) ? String(n) : lit(arg);
}
