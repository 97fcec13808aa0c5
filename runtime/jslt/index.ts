/**
 * The runtime of compiled JSLT programs: everything generated code reaches through
 * `import * as L from '…/runtime/jslt/index.js'`. Besides the operators and built-ins it holds
 * the per-run state (`begin`): external variables, the recursion depth and a call budget, so a
 * runaway program (`def f(x) f(x)`) ends with a PipeError instead of a stack overflow or a hang.
 */
import { PipeError } from '../errors.js';
import { tick } from '../work-meter.js';
import {
  type JsltObject,
  type JsltValue,
  JsltDecimal,
  fromExternal,
  isArray,
  isObject,
  jsltEquals,
  jsltError,
  newObject,
  objectToEntries,
  setKey,
  toJsonText,
  toPlainJson,
} from './values.js';

export { fn, BUILTINS } from './builtins.js';
export {
  SKIP,
  divide,
  equals,
  firstValue,
  forArray,
  forObject,
  get,
  greater,
  greaterOrEqual,
  index,
  less,
  lessOrEqual,
  match,
  minus,
  modulo,
  notEquals,
  object,
  path,
  plus,
  put,
  putComprehended,
  putDynamic,
  slice,
  times,
  truthy,
} from './operators.js';
export { isValue, newObject, JsltDecimal, toPlainJson } from './values.js';
export { parseJsonText } from './json-parse.js';
export type { JsltValue, JsltObject } from './values.js';

/** Deepest chain of user-function calls (`def`) before the program is stopped. */
export const MAX_CALL_DEPTH = 400;
/** Most user-function calls in one run (stops exponential recursion such as a naive fib(60)). */
export const MAX_CALLS = 5_000_000;

export interface RunState {
  readonly variables: Readonly<Record<string, unknown>>;
  depth: number;
  calls: number;
}

export function begin(variables: Readonly<Record<string, unknown>> | undefined): RunState {
  return { variables: variables ?? {}, depth: 0, calls: 0 };
}

/** Called on entry to every user function; the caller decrements `depth` in a finally block. */
export function enter(state: RunState, functionName: string): void {
  state.depth++;
  state.calls++;
  tick();
  if (state.depth > MAX_CALL_DEPTH) {
    throw jsltError(`JSLT recursion too deep: function ${functionName}() nested more than ${MAX_CALL_DEPTH} calls`);
  }
  if (state.calls > MAX_CALLS) {
    throw jsltError(`JSLT program made more than ${MAX_CALLS} function calls; stopped`);
  }
}

/** `$name` that no `let` or parameter declares: it must come from the caller's variables. */
export function variable(state: RunState, name: string): JsltValue {
  if (!Object.prototype.hasOwnProperty.call(state.variables, name)) {
    throw jsltError(`No value for variable $${name}`);
  }
  return fromExternal(state.variables[name]);
}

/** The context item: undefined input (no body) is JSLT null. */
export function context(input: unknown): JsltValue {
  return fromExternal(input);
}

export function dec(value: number): JsltDecimal {
  return new JsltDecimal(value);
}

/**
 * Runs one evaluation of a compiled program: sets up the run state, evaluates `body` with the
 * input as the context item, and returns plain JSON; every failure surfaces as a PipeError.
 */
export function run(
  input: unknown,
  variables: Readonly<Record<string, unknown>> | undefined,
  body: (state: RunState, dot: JsltValue) => JsltValue,
): unknown {
  try {
    return toPlainJson(body(begin(variables), context(input)));
  } catch (error) {
    throw asJsltError(error);
  }
}

/** Like `run`, but keeps decimal boxes in the result (tests compare `1.0` and `1` apart). */
export function runKeepingDecimals(
  input: unknown,
  variables: Readonly<Record<string, unknown>> | undefined,
  body: (state: RunState, dot: JsltValue) => JsltValue,
): JsltValue {
  try {
    return body(begin(variables), context(input));
  } catch (error) {
    throw asJsltError(error);
  }
}

/** Any failure inside a program as a PipeError; a JS stack overflow becomes a clear message. */
export function asJsltError(error: unknown): PipeError {
  if (error instanceof PipeError) return error;
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return jsltError('JSLT program nested too deeply (stack exhausted)');
  }
  if (error instanceof ReferenceError) {
    return jsltError(`JSLT variable used before its value was computed: ${error.message}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return jsltError(`JSLT internal error: ${message}`);
}

/**
 * `exp:group-by(seq, key, value)` from the reference's experimental module: groups elements by
 * `keyOf(element)`, collecting `valueOf(element)`; output `[{"key": k, "values": [...]}]`.
 */
export function groupBy(
  sequence: JsltValue,
  keyOf: (item: JsltValue) => JsltValue,
  valueOf: (item: JsltValue) => JsltValue,
): JsltValue {
  if (sequence === null) return null;
  const items = isObject(sequence) ? objectToEntries(sequence) : sequence;
  if (!isArray(items)) throw jsltError(`Can't group-by on ${toJsonText(sequence)}`);
  const groups: Array<{ key: JsltValue; values: JsltValue[] }> = [];
  for (const item of items) {
    const key = keyOf(item);
    const value = valueOf(item);
    const group = groups.find((candidate) => jsltEquals(candidate.key, key));
    if (group) group.values.push(value);
    else groups.push({ key, values: [value] });
  }
  return groups.map(({ key, values }): JsltObject => {
    const entry = newObject();
    setKey(entry, 'key', key);
    setKey(entry, 'values', values);
    return entry;
  });
}
