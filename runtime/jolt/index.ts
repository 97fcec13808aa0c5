/**
 * The runtime half of compiled JOLT: the small helpers generated transform code calls as `J.*`.
 * Generated code (compiler/jolt) resolves the spec's keys, wildcards and references at build time;
 * what is left here is data-dependent: safe property access (JSON keys such as `__proto__` are plain
 * data), Shiftr's "write, or merge into a list" output rule, Modifier write modes, Sortr ordering and
 * deep copies. Every recursive helper is depth-limited and throws a PipeError instead of overflowing.
 */
import { PipeError } from '../errors.js';
import { tick } from '../work-meter.js';
import { compareUtf16, isMap, MAX_DEPTH, parseJavaInt, scalarString, tooDeep, type JsonMap } from './java.js';

export {
  FUNCTIONS as F,
  NONE as N,
  NO_ARGUMENTS as E,
  ONE_ARGUMENT_FORMS as F1,
  TWO_ARGUMENT_FORMS as F2,
  LIST_FORMS as FL,
} from './functions.js';
export type { ModifyFunction } from './functions.js';
export { isMap, scalarString as jstr } from './java.js';
import { NONE } from './functions.js';

const hasOwn = Object.prototype.hasOwnProperty;

/** Own-property test: inherited names like `constructor` never count as present. */
export function has(o: JsonMap, k: string): boolean {
  return hasOwn.call(o, k);
}

/** Assignment that treats `__proto__` as an ordinary key instead of the prototype setter. */
export function set(o: JsonMap, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** A reference error the build could not rule out (e.g. `&(1,2)` on a key matched without groups). */
export function fail(message: string): never {
  throw new PipeError(`JOLT: ${message}`, { code: 500, kind: 'JOLT_TRANSFORM' });
}

/** ArrayPathElement index check: the text if it is a non-negative Java int, else null (skip the write). */
export function idx(text: string | null): string | null {
  if (text === null) return null;
  const n = parseJavaInt(text);
  return n !== undefined && n >= 0 ? text : null;
}

/** ArrayPathElement index for a write: the non-negative Java int `text` stands for, else -1 (skip). */
export function index(text: string | null): number {
  if (text === null) return -1;
  const n = parseJavaInt(text);
  return n !== undefined && n >= 0 ? n : -1;
}

/**
 * `index(k)` of a generated function's own key: a list loop that called it passes `n`, the same
 * index as a number (`k` is its decimal text), so the text is not parsed back.
 */
export function listIndex(k: string | null, n: number | undefined): number {
  if (n === undefined) return index(k);
  return n <= 2147483647 ? n : -1;
}

/**
 * A generated function's own key as text: `k`, or the decimal text of `n` when a list loop passed
 * the index alone (`k` null; most functions never need the text of a list index).
 */
export function keyText(k: string | null, n: number | undefined): string {
  return k ?? String(n);
}

/**
 * Object.prototype, for generated code that reads a computed key with a plain `o[k]`: such a read
 * finds an inherited member only when it returns a function (JSON values never are) or, for
 * `__proto__`, this object. Either result means "the key is absent".
 */
export const proto: unknown = Object.prototype;

/** A value found by `@(…)` used as a key: numbers become their int value, strings stay, others abort. */
export function tkey(v: unknown): string | null {
  if (typeof v === 'number') return String(Math.trunc(v));
  return typeof v === 'string' ? v : null;
}

/** Read step into a map (Traversr GET): the value, or NONE when absent or the tree is not a map. */
export function gm(t: unknown, k: string | null): unknown {
  if (k === null || !isMap(t) || !hasOwn.call(t, k)) return NONE;
  return t[k];
}

/** Read step into a list by index text. */
export function ga(t: unknown, k: string | null): unknown {
  if (k === null || !Array.isArray(t)) return NONE;
  const i = parseJavaInt(k);
  return i !== undefined && i >= 0 && i < t.length ? t[i] : NONE;
}

/** Per-execution Shiftr state: walked-path slots (keys, captures, data, match counts) and the output. */
export interface ShiftState {
  readonly K: string[];
  readonly C: unknown[];
  readonly T: unknown[];
  readonly H: number[];
  readonly o: JsonMap;
  /**
   * Lists this run created; lists from the input are copied before Shiftr appends to them. A short
   * array while there are few (most runs make one or two), a Set once there are many.
   */
  own: unknown[][] | Set<unknown[]>;
  /** The run walked a large input map or list: maps keyed by the data start as dictionaries (dict). */
  wide: boolean;
  /** The maps made without a prototype (dict), given Object.prototype when the run ends. */
  bare: JsonMap[] | null;
}

export function shiftState(input: unknown): ShiftState {
  const holder: JsonMap = { root: undefined };
  return {
    K: ['root', 'root'],
    C: [undefined, undefined],
    T: [input, input],
    H: [0, 0],
    o: holder,
    own: [],
    wide: false,
    bare: null,
  };
}

/**
 * A new output map whose keys come from the data (`&`, `@(…)`). In a wide run (many keys likely)
 * it starts as a dictionary without a prototype: V8 makes an object that many keys are added to
 * by computed names a dictionary anyway, and starting as one skips a hidden class per new key
 * and the conversion; without a prototype, adding a key and looking for one search its own keys
 * alone. The run ends by giving it Object.prototype (shiftResult), so the output is ordinary.
 * A small run keeps `{}`: a small dictionary is slower to make and to serialize than an object.
 */
export function dict(s: ShiftState): JsonMap {
  if (!s.wide) return {};
  const map = Object.create(null) as JsonMap;
  if (s.bare === null) s.bare = [map];
  else s.bare.push(map);
  return map;
}

/** The Shiftr result: what was written under the root key (null when nothing was). */
export function shiftResult(s: ShiftState): unknown {
  if (s.bare !== null) for (const map of s.bare) Object.setPrototypeOf(map, Object.prototype);
  return s.o.root === undefined ? null : s.o.root;
}

type StepKind = 'M' | 'A' | 'X';

function readStep(tree: unknown, kind: StepKind, key: string): unknown {
  if (kind === 'M') return isMap(tree) ? (hasOwn.call(tree, key) ? tree[key] : undefined) : NONE;
  if (!Array.isArray(tree)) return NONE;
  if (kind === 'X') return undefined;
  const i = Number(key);
  return i < tree.length ? tree[i] : undefined;
}

function overwrite(s: ShiftState, tree: unknown, kind: StepKind, key: string, value: unknown): void {
  if (kind === 'M') {
    set(tree as JsonMap, key, value);
    return;
  }
  const list = tree as unknown[];
  if (kind === 'X') {
    list.push(value);
    return;
  }
  const i = Number(key);
  while (list.length <= i) list.push(null);
  list[i] = value;
}

/**
 * Shiftr write: walk `kinds`/`keys` below the root key, creating maps/lists as needed, then set the
 * data, or add it to the list already there, or turn the existing value into a two-element list.
 * A null key (an unresolvable reference) or a type clash on the way skips the write, as in Jolt.
 */
export function put(s: ShiftState, kinds: string, keys: readonly (string | null)[], data: unknown): void {
  tick(kinds.length);
  for (const k of keys) if (k === null) return;
  let tree: unknown = s.o;
  let kind: StepKind = 'M';
  let key = 'root';
  for (let i = 0; i < kinds.length; i++) {
    const nextKey = keys[i];
    if (nextKey === null || nextKey === undefined) return;
    const nextKind = kinds[i] as StepKind;
    let sub = readStep(tree, kind, key);
    if (sub === NONE) return;
    if (sub === undefined || sub === null) {
      sub = nextKind === 'M' ? {} : own(s, []);
      overwrite(s, tree, kind, key, sub);
    }
    tree = sub;
    kind = nextKind;
    key = nextKey;
  }
  const existing = readStep(tree, kind, key);
  if (existing === NONE) return;
  if (existing === undefined || existing === null) overwrite(s, tree, kind, key, data);
  else if (Array.isArray(existing)) {
    if (isOwned(s, existing)) existing.push(data);
    else overwrite(s, tree, kind, key, own(s, [...existing, data]));
  } else overwrite(s, tree, kind, key, own(s, [existing, data]));
}

/** Final Shiftr set into a map: set, add to the list there, or make a list of old and new. */
export function fm(s: ShiftState, t: JsonMap, k: string, data: unknown): void {
  const existing = hasOwn.call(t, k) ? t[k] : undefined;
  if (existing === undefined || existing === null) set(t, k, data);
  else if (Array.isArray(existing)) {
    if (isOwned(s, existing)) existing.push(data);
    else set(t, k, own(s, [...existing, data]));
  } else set(t, k, own(s, [existing, data]));
}

/** Final Shiftr set into a list at index `i`. */
export function fa(s: ShiftState, t: unknown[], i: number, data: unknown): void {
  const existing = i < t.length ? t[i] : undefined;
  if (existing === undefined || existing === null) {
    while (t.length < i) t.push(null);
    t[i] = data;
  } else if (Array.isArray(existing)) {
    if (isOwned(s, existing)) existing.push(data);
    else t[i] = own(s, [...existing, data]);
  } else t[i] = own(s, [existing, data]);
}

/** Past this many lists a run keeps them in a Set (`includes` on an array is linear). */
const FEW_OWNED_LISTS = 16;

/** Registers a list created by this Shiftr run (appending to it later needs no copy). */
export function own(s: ShiftState, list: unknown[]): unknown[] {
  const owned = s.own;
  if (!Array.isArray(owned)) owned.add(list);
  else if (owned.push(list) > FEW_OWNED_LISTS) s.own = new Set(owned);
  return list;
}

function isOwned(s: ShiftState, list: unknown[]): boolean {
  const owned = s.own;
  return Array.isArray(owned) ? owned.includes(list) : owned.has(list);
}

/** StarDoublePathElement match: the two captures, or null. `*` matches at least one character. */
export function star2(k: string, prefix: string, mid: string, suffix: string): [string, string] | null {
  if (!k.startsWith(prefix) || !k.endsWith(suffix)) return null;
  const from = prefix.length + 1;
  const to = k.length - suffix.length - 1;
  if (from >= to) return null;
  const found = k.substring(from, to).indexOf(mid);
  if (found < 0) return null;
  const midAt = found + from;
  if (midAt <= 0) return null;
  return [k.substring(prefix.length, midAt), k.substring(midAt + mid.length, k.length - suffix.length)];
}

/**
 * A key with three or more `*` (`a*b*c*d`), matched as Jolt's `^a(.+?)b(.+?)c(.+?)d$` would be,
 * but in linear time (a backtracking regex takes polynomial time on a long key): each literal is
 * placed as early as it can be, which finds a match whenever there is one (a later placement only
 * leaves less room for the rest) and is the one the lazy groups take. `parts` are the literals
 * between the stars. Returns [key, group 1, …] or null.
 */
export function starN(k: string, parts: readonly string[]): string[] | null {
  const prefix = parts[0] ?? '';
  const suffix = parts[parts.length - 1] ?? '';
  const end = k.length - suffix.length;
  if (end < prefix.length || !k.startsWith(prefix) || !k.endsWith(suffix)) return null;
  const groups = [k];
  let at = prefix.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const literal = parts[i] as string;
    const found = k.indexOf(literal, at + 1);
    if (found < 0 || found + literal.length >= end) return null;
    groups.push(k.slice(at, found));
    at = found + literal.length;
  }
  if (end - at < 1) return null;
  groups.push(k.slice(at, end));
  return groups;
}

/** Deep copy of a JSON value (spec defaults are copied so runs never share state). */
export function copy(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (depth > MAX_DEPTH) throw tooDeep('copy');
  tick();
  if (Array.isArray(v)) return v.map((e) => copy(e, depth + 1));
  const out: JsonMap = {};
  for (const k of Object.keys(v)) set(out, k, copy((v as JsonMap)[k], depth + 1));
  return out;
}

/** A JSON constant embedded in generated code, parsed once (never as an object literal: `__proto__`). */
export function constant(json: string): unknown {
  return JSON.parse(json) as unknown;
}

function sortrCompare(a: string, b: string): number {
  const at = a.startsWith('~');
  const bt = b.startsWith('~');
  if (at !== bt) return at ? -1 : 1;
  return compareUtf16(a, b);
}

/** Sortr: maps get their keys ordered (`~` keys first, then UTF-16 order) at every depth. */
export function sort(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (depth > MAX_DEPTH) throw tooDeep('sort');
  if (Array.isArray(v)) return v.map((e) => sort(e, depth + 1));
  const out: JsonMap = {};
  for (const k of Object.keys(v).sort(sortrCompare)) set(out, k, sort((v as JsonMap)[k], depth + 1));
  return out;
}

// ───────────────────────────── Modifier ─────────────────────────────

/** Modifier write modes: 0 overwrite (`+`), 1 default (`~`, only over null/absent), 2 define (`_`, only absent). */
export type WriteMode = 0 | 1 | 2;

function applicableInMap(parent: JsonMap, key: string, mode: WriteMode): boolean {
  if (mode === 0) return true;
  if (mode === 1) return !hasOwn.call(parent, key) || parent[key] === null;
  return !hasOwn.call(parent, key);
}

function listIndexFor(parent: unknown[], origSize: number, key: string, mode: WriteMode): number {
  const i = parseJavaInt(key);
  if (i === undefined || i < 0 || origSize < 0 || i >= parent.length) return -1;
  if (mode === 1 && parent[i] != null) return -1;
  if (mode === 2 && (i < origSize || parent[i] != null)) return -1;
  return i;
}

/** Modifier setData: write `value` at `key` of `parent` if the mode allows it. */
export function mset(parent: unknown, origSize: number, key: string, value: unknown, mode: WriteMode): void {
  if (isMap(parent)) {
    if (applicableInMap(parent, key, mode)) set(parent, key, value);
  } else if (Array.isArray(parent)) {
    const i = listIndexFor(parent, origSize, key, mode);
    if (i >= 0) parent[i] = value;
  }
}

/** Modifier DataType.create: a new map/list at `key` of `parent` when the mode allows, else null. */
export function mcreate(parent: unknown, origSize: number, key: string, mode: WriteMode, list: boolean): unknown {
  const value = list ? [] : {};
  if (isMap(parent)) {
    if (!applicableInMap(parent, key, mode)) return null;
    set(parent, key, value);
    return value;
  }
  if (Array.isArray(parent)) {
    const i = listIndexFor(parent, origSize, key, mode);
    if (i < 0) return null;
    parent[i] = value;
    return value;
  }
  return null;
}

/** LIST DataType.expand: grow `list` with nulls up to `maxIndex`; returns the original size. */
export function expand(list: unknown[], maxIndex: number): number {
  const size = list.length;
  while (list.length <= maxIndex) list.push(null);
  return size;
}

/** The value of one modify evaluator, skipping to the next when it yields nothing. */
export function args(values: readonly unknown[]): unknown[] {
  return values.map((v) => (v === NONE ? null : v));
}

// ───────────────────────────── Cardinality ─────────────────────────────

// Jolt's MANY re-inserts the key (moving it last); key order is not significant for maps here, and
// deleting would push V8 objects into slow dictionary mode, so the value is replaced in place.
function putInParent(parent: unknown, key: string | number, value: unknown): void {
  if (isMap(parent)) {
    set(parent, String(key), value);
  } else if (Array.isArray(parent)) {
    const i = typeof key === 'number' ? key : parseJavaInt(key);
    if (i !== undefined && i >= 0 && i < parent.length) parent[i] = value;
  }
}

/**
 * Cardinality MANY: wrap a single value in a list (null becomes []); returns the new value. `key`
 * is the value's key in `parent`: a number when a loop over a list passes the index itself.
 */
export function many(parent: unknown, key: string | number, value: unknown): unknown {
  if (Array.isArray(value)) return value;
  const list = value === null || value === undefined ? [] : [value];
  putInParent(parent, key, list);
  return list;
}

/** Cardinality ONE: replace a list by its first element (null when empty); returns the new value. */
export function one(parent: unknown, key: string | number, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const first = value.length > 0 ? value[0] : null;
  putInParent(parent, key, first);
  return first;
}

// ───────────────────────────── Removr ─────────────────────────────

/** Removes the given indices from `list`, biggest first so earlier removals do not shift later ones. */
export function removeIndices(list: unknown[], indices: Iterable<number>): void {
  const unique = [...new Set(indices)].sort((a, b) => b - a);
  for (const i of unique) list.splice(i, 1);
}

/** Removes own keys from a map. */
export function removeKeys(map: JsonMap, keys: Iterable<string>): void {
  for (const k of keys) if (hasOwn.call(map, k)) delete map[k];
}
