/**
 * The fixed-shape fast path of a shift, and of the default and remove operations right after it.
 *
 * A shift spec whose keys are all literal, except `*` over lists whose elements go to `[&n]` of
 * output lists, and whose output paths are all literal (or `&n` of a literal level), writes a
 * known tree when the input has every key the spec names (and objects and non-empty lists where
 * the spec descends): which output keys exist, in which order, and which input value each holds.
 * That tree is built here at compile time; a default or remove that follows is applied to it (a
 * default adds entries, a remove drops them), and the generated function reads the input once and
 * builds the result as object literals, which is what a person would write for that shape.
 *
 * At run time the generated statements check each read and leave their block as soon as the input
 * is not of that shape (a key absent, a scalar where the spec descends, an empty list); the general
 * code of each operation then runs instead. A shift does not change its input, so starting over is
 * safe.
 * Anything this module does not model exactly makes it give up at compile time (no fast path).
 */
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, plainKey, type Program, isPlainObject } from './emit.js';
import { type Child, parseChildren } from './shift.js';
import { type PathElement, type Ref, starMatches } from './keys.js';
import { type Key as DefaultKey, precedence } from './default.js';
import type { Node as RemoveNode } from './remove.js';

/** A spec (or input shape) this module does not model: no fast path. */
class NotFixed extends Error {}

/** A `*` over a list: one loop of the generated code; lists written at `[&n]` of it grow by one element a turn. */
interface Loop {
  readonly id: number;
}

type OutNode = MapNode | ListNode | ValueNode;

/** An output map: its entries in the order the general code creates them. */
interface MapNode {
  readonly kind: 'map';
  readonly entries: Map<string, OutNode>;
}

/** An output list with one element per turn of `loop`. */
interface ListNode {
  readonly kind: 'list';
  readonly loop: Loop;
  element: OutNode | undefined;
}

/** A value: an input value read into a variable, or a default (`nullable`: may be null at run time). */
interface ValueNode {
  readonly kind: 'value';
  readonly expr: string;
  readonly nullable: boolean;
}

/** One read of the input, with what the fast path requires of the value found. */
type Read =
  | { readonly kind: 'value'; readonly name: string; readonly key: string; readonly comment: string }
  | {
      readonly kind: 'map';
      readonly name: string;
      readonly key: string;
      readonly comment: string;
      readonly reads: Read[];
    }
  | {
      readonly kind: 'loop';
      readonly name: string;
      readonly key: string;
      readonly comment: string;
      readonly loop: Loop;
      readonly index: string;
      readonly element: string;
      /** The element's reads when the element is a spec object (then it must be a map). */
      readonly reads: Read[] | undefined;
      readonly elementComment: string;
    };

/** The key of one walked level: a literal key, or the index of a loop. */
type LevelKey = { readonly literal: string } | { readonly loop: Loop };

/** A shift's fixed output shape and the reads that fill it, ready for fusing and emitting. */
export interface FixedShift {
  readonly reads: Read[];
  root: MapNode;
}

interface Walk {
  readonly prog: Program;
  readonly root: MapNode;
  counter: number;
}

/** The fixed shape of a shift spec, or undefined when the spec is not of the kind modelled here. */
export function fixedShift(prog: Program, spec: unknown, path: JsonPath): FixedShift | undefined {
  if (!isPlainObject(spec)) return undefined;
  const walk: Walk = { prog, root: { kind: 'map', entries: new Map() }, counter: 0 };
  const reads: Read[] = [];
  try {
    walkObject(walk, spec, path, [{ literal: 'root' }], [], reads, 0);
  } catch (e) {
    if (e instanceof NotFixed) return undefined;
    throw e;
  }
  if (walk.root.entries.size === 0) return undefined;
  return { reads, root: walk.root };
}

function fresh(walk: Walk, prefix: string): string {
  walk.counter += 1;
  return `${prefix}${walk.counter}`;
}

function literalChildren(walk: Walk, spec: Record<string, unknown>, path: JsonPath): Child[] {
  const children = parseChildren(walk.prog, spec, path);
  for (const child of children) {
    if (child.pe.kind !== 'literal' || !plainKey(child.pe.key)) throw new NotFixed();
  }
  return children;
}

/** The only child of a spec object that is `{"*": …}`, or undefined. */
function starOnly(walk: Walk, spec: Record<string, unknown>, path: JsonPath): Child | undefined {
  if (Object.keys(spec).length !== 1 || !('*' in spec)) return undefined;
  const [child] = parseChildren(walk.prog, spec, path);
  return child?.pe.kind === 'star-all' ? child : undefined;
}

function walkObject(
  walk: Walk,
  spec: Record<string, unknown>,
  path: JsonPath,
  keys: readonly LevelKey[],
  loops: readonly Loop[],
  reads: Read[],
  depth: number,
): void {
  if (depth > MAX_SPEC_DEPTH) throw new NotFixed();
  for (const child of literalChildren(walk, spec, path)) {
    const key = child.pe.kind === 'literal' ? child.pe.key : '';
    const comment = walk.prog.specLine(child.path, child.rhs);
    const childKeys = [...keys, { literal: key }];
    if (!child.composite) {
      const name = fresh(walk, 'value');
      reads.push({ kind: 'value', name, key, comment });
      writeAll(walk, child, childKeys, loops, name);
      continue;
    }
    const rhs = child.rhs as Record<string, unknown>;
    const star = starOnly(walk, rhs, child.path);
    if (star === undefined) {
      const name = fresh(walk, 'map');
      const inner: Read[] = [];
      reads.push({ kind: 'map', name, key, comment, reads: inner });
      walkObject(walk, rhs, child.path, childKeys, loops, inner, depth + 1);
      continue;
    }
    const loop: Loop = { id: walk.counter };
    const name = fresh(walk, 'list');
    const index = fresh(walk, 'i');
    const element = fresh(walk, 'element');
    const elementKeys = [...childKeys, { loop }];
    const elementComment = walk.prog.specLine(star.path, star.rhs);
    if (star.composite) {
      const inner: Read[] = [];
      reads.push({ kind: 'loop', name, key, comment, loop, index, element, reads: inner, elementComment });
      walkObject(walk, star.rhs as Record<string, unknown>, star.path, elementKeys, [...loops, loop], inner, depth + 1);
    } else {
      reads.push({ kind: 'loop', name, key, comment, loop, index, element, reads: undefined, elementComment });
      writeAll(walk, star, elementKeys, [...loops, loop], element);
    }
  }
}

/** One step of an output path: a map key, or the index of a loop's list. */
type Step = { readonly key: string } | { readonly loop: Loop };

function writeAll(walk: Walk, child: Child, keys: readonly LevelKey[], loops: readonly Loop[], value: string): void {
  for (const output of child.outputs) {
    const steps = output.map((pe) => stepOf(pe, keys));
    const listSteps = steps.flatMap((s) => ('loop' in s ? [s.loop] : []));
    // every loop around the leaf indexes its own list on the way, outermost first: one write per
    // turn, each to a place of its own
    if (listSteps.length !== loops.length || listSteps.some((l, i) => l !== loops[i])) throw new NotFixed();
    put(walk.root, steps, { kind: 'value', expr: value, nullable: true });
  }
}

/** The level `ref` refers to from a leaf at the last of `keys`. */
function levelOf(ref: Ref, keys: readonly LevelKey[]): LevelKey {
  const level = keys[keys.length - 1 - ref.pathIndex];
  if (ref.keyGroup !== 0 || level === undefined || keys.length - 1 - ref.pathIndex === 0) throw new NotFixed();
  return level;
}

function stepOf(pe: PathElement, keys: readonly LevelKey[]): Step {
  switch (pe.kind) {
    case 'literal':
      if (!plainKey(pe.key)) throw new NotFixed();
      return { key: pe.key };
    case 'amp': {
      let text = '';
      for (const token of pe.tokens) {
        if (typeof token === 'string') text += token;
        else {
          const level = levelOf(token, keys);
          if (!('literal' in level)) throw new NotFixed();
          text += level.literal;
        }
      }
      if (!plainKey(text)) throw new NotFixed();
      return { key: text };
    }
    case 'array': {
      if (pe.index.type !== 'ref') throw new NotFixed();
      const level = levelOf(pe.index.ref, keys);
      if (!('loop' in level)) throw new NotFixed();
      return { loop: level.loop };
    }
    default:
      throw new NotFixed();
  }
}

function containerFor(next: Step): OutNode {
  return 'loop' in next ? { kind: 'list', loop: next.loop, element: undefined } : { kind: 'map', entries: new Map() };
}

/** Puts `value` at `steps` below `root`; two writes to one place, or through a value, are not modelled. */
function put(root: MapNode, steps: readonly Step[], value: ValueNode): void {
  if (steps.length === 0) throw new NotFixed();
  let node: OutNode = root;
  steps.forEach((step, i) => {
    const next = steps[i + 1];
    const existing = childOf(node, step);
    if (next === undefined) {
      if (existing !== undefined) throw new NotFixed();
      setChild(node, step, value);
      return;
    }
    if (existing === undefined) {
      const made = containerFor(next);
      setChild(node, step, made);
      node = made;
    } else if (existing.kind === 'map' && 'key' in next) node = existing;
    else if (existing.kind === 'list' && 'loop' in next && existing.loop === next.loop) node = existing;
    else throw new NotFixed();
  });
}

function childOf(node: OutNode, step: Step): OutNode | undefined {
  if (node.kind === 'map' && 'key' in step) return node.entries.get(step.key);
  if (node.kind === 'list' && 'loop' in step && node.loop === step.loop) return node.element;
  throw new NotFixed();
}

function setChild(node: OutNode, step: Step, child: OutNode): void {
  if (node.kind === 'map' && 'key' in step) node.entries.set(step.key, child);
  else if (node.kind === 'list') node.element = child;
  else throw new NotFixed();
}

function cloneNode<T extends OutNode>(node: T): T {
  if (node.kind === 'map') {
    return { kind: 'map', entries: new Map([...node.entries].map(([k, v]) => [k, cloneNode(v)])) } as T;
  }
  if (node.kind === 'list') {
    return { kind: 'list', loop: node.loop, element: node.element && cloneNode(node.element) } as T;
  }
  return node;
}

// ───────────────────────────── default ─────────────────────────────

/** The shape after a default, or undefined when the default is not modelled on it. */
export function fuseDefault(prog: Program, shape: FixedShift, spec: DefaultKey): boolean {
  const root = cloneNode(shape.root);
  try {
    defaultChildren(prog, root, spec);
  } catch (e) {
    if (e instanceof NotFixed) return false;
    throw e;
  }
  shape.root = root;
  return true;
}

/** Defaultr's children of `key` applied to `node` (see default.ts emitApplyChildren). */
function defaultChildren(prog: Program, node: OutNode, key: DefaultKey): void {
  const children = [...(key.children ?? [])].sort(precedence);
  if (node.kind === 'value') throw new NotFixed();
  if (key.isArray) {
    // the general code fills a list only; a map is left alone
    if (node.kind !== 'list') return;
    if (key.maxIndex >= 0) throw new NotFixed();
    for (const child of children) {
      if (child.op !== 'star') throw new NotFixed();
      node.element = defaultAt(prog, node.element, child);
    }
    return;
  }
  if (node.kind !== 'map') return;
  for (const child of children) {
    const name = child.names[0] ?? '';
    if (child.op !== 'literal' || !plainKey(name)) throw new NotFixed();
    node.entries.set(name, defaultAt(prog, node.entries.get(name), child));
  }
}

/** What is at a place after a default `child` applied there (see default.ts applyAt). */
function defaultAt(prog: Program, existing: OutNode | undefined, child: DefaultKey): OutNode {
  if (child.children === undefined) {
    const value = prog.freshValue(child.literal);
    const nullable = child.literal === null;
    if (existing === undefined) return { kind: 'value', expr: value, nullable };
    if (existing.kind !== 'value' || !existing.nullable) return existing;
    return { kind: 'value', expr: `(${existing.expr} === null ? ${value} : ${existing.expr})`, nullable };
  }
  if (existing === undefined) {
    if (child.isArray) throw new NotFixed();
    const made: MapNode = { kind: 'map', entries: new Map() };
    defaultChildren(prog, made, child);
    return made;
  }
  defaultChildren(prog, existing, child);
  return existing;
}

// ───────────────────────────── remove ─────────────────────────────

/** Applies a remove to the shape; false (shape unchanged) when it is not modelled on it. */
export function fuseRemove(shape: FixedShift, nodes: readonly RemoveNode[]): boolean {
  const root = cloneNode(shape.root);
  try {
    removeFrom(root, nodes);
  } catch (e) {
    if (e instanceof NotFixed) return false;
    throw e;
  }
  shape.root = root;
  return true;
}

/** Removr's `nodes` applied to `node` (see remove.ts emitProcess). */
function removeFrom(node: OutNode, nodes: readonly RemoveNode[]): void {
  if (node.kind === 'value') throw new NotFixed();
  if (node.kind === 'list') {
    for (const n of nodes) {
      if (n.matcher.kind === 'literal' && /^[+-]?\d+$/.test(n.matcher.key)) throw new NotFixed();
      if (n.matcher.kind !== 'star-all') continue;
      if (n.children === undefined || node.element === undefined) throw new NotFixed();
      removeFrom(node.element, n.children);
    }
    return;
  }
  const drop = new Set<string>();
  for (const n of nodes) {
    const matcher = n.matcher;
    const keys =
      matcher.kind === 'literal'
        ? node.entries.has(matcher.key)
          ? [matcher.key]
          : []
        : [...node.entries.keys()].filter((k) => starMatches(matcher, k));
    for (const k of keys) {
      const entry = node.entries.get(k);
      if (n.children === undefined) drop.add(k);
      else if (entry !== undefined) removeFrom(entry, n.children);
    }
  }
  for (const k of drop) node.entries.delete(k);
}

// ───────────────────────────── code ─────────────────────────────

/**
 * The fast path as statements of the chain function, which holds the operations' input in `data`
 * (a `let`): they read the input once and, when it is of the fixed shape, assign the output to `data`
 * and leave the block labelled `done`; any other input leaves the block labelled `declined` early,
 * with `data` unchanged, for the general steps that follow it. Statements rather than a function of
 * their own: the function was too large for V8 to inline, and its call and the sentinel it returned
 * for "not fixed" cost ≈ 5 % of a small transform. `what` names the operations it stands for.
 */
export function emitFixedShift(
  shape: FixedShift,
  what: string,
  data: string,
  labels: { readonly declined: string; readonly done: string },
): string {
  const lists = new Map<Loop, { name: string; node: ListNode }[]>();
  collectLists(shape.root, lists, { counter: 0 });
  const out = new Lines();
  out.add(0, `// ${what} in one pass, for input that has every key the shift names (objects`);
  out.add(0, `// where it descends, non-empty lists under \`*\`): the output has a fixed shape, built as literals.`);
  out.add(0, `// Testing x for null and undefined is the whole map test where x has a key read that no string,`);
  out.add(0, `// number or list has.`);
  out.add(0, `${labels.declined}: {`);
  const decline = `break ${labels.declined};`;
  out.add(1, `if (${mapGuard(data, shape.reads)}) ${decline}`);
  emitReads(out, 1, data, shape.reads, lists, decline);
  out.add(1, `${data} = ${expression(shape.root, lists, 1)};`);
  out.add(1, `break ${labels.done};`);
  out.add(0, `}`);
  return out.toString();
}

/**
 * The condition under which `value`, read where the spec descends into an object with `reads`, is
 * not a map (the general code then writes nothing below it, or matches its text against the keys).
 * The full test is `null`, a scalar or a list. When one of the keys read is absent from every value
 * that is not a map (see absentFromNonMaps), only null and undefined need a test of their own: reading
 * that key of a scalar or list gives undefined, which declines the input just after. V8 spends ≈ 5 %
 * of the shift-order transform on each of `typeof` and `Array.isArray` per object, so this matters.
 */
function mapGuard(value: string, reads: readonly Read[]): string {
  // two comparisons rather than `== null`, which V8 compiles to a test of the value's map (≈ 5 % slower)
  if (reads.some((r) => absentFromNonMaps(r.key))) return `${value} === null || ${value} === undefined`;
  return `${value} === null || typeof ${value} !== "object" || Array.isArray(${value})`;
}

/** Values of each kind that is not a map, with what their prototypes have. */
const NON_MAP_SAMPLES: readonly object[] = [
  Object('text'),
  Object(0),
  Object(false),
  Object(0n),
  Object(Symbol('s')),
  ['element'],
  (): void => undefined,
  function named(): void {},
];

/**
 * Whether `value[key]` is undefined for every JSON value that is not a map: strings, numbers, booleans
 * and lists (the runtime hands JOLT `Json` values, and JSON lists and strings have no named
 * properties of their own). So it is when no such value has the key, own or inherited, and the key
 * is no index (`"0"` of a string or list). Bigints, symbols and functions are checked as well though
 * JSON has none. Every read of the fast path declines undefined, so one such key read at a level
 * proves the value there a map. Keys that a later JavaScript might add to these prototypes are a risk
 * only if every other key read at that level were such a key as well.
 */
export function absentFromNonMaps(key: string): boolean {
  if (/^\d/.test(key)) return false;
  return !NON_MAP_SAMPLES.some((sample) => key in sample);
}

function collectLists(
  node: OutNode,
  lists: Map<Loop, { name: string; node: ListNode }[]>,
  counter: { counter: number },
): void {
  if (node.kind === 'map') for (const child of node.entries.values()) collectLists(child, lists, counter);
  else if (node.kind === 'list') {
    counter.counter += 1;
    const forLoop = lists.get(node.loop) ?? [];
    forLoop.push({ name: `out${counter.counter}`, node });
    lists.set(node.loop, forLoop);
    if (node.element) collectLists(node.element, lists, counter);
  }
}

/**
 * The reads of one level: its values first, declined together by one test when one is undefined (V8
 * spent ≈ 8 % of shift-order on a test after each read of a list element, against ≈ 1 % for one test
 * of them all), then the maps and lists it descends into. Reading plain data has no effects, so the
 * order is free.
 */
function emitReads(
  out: Lines,
  ind: number,
  data: string,
  reads: readonly Read[],
  lists: Map<Loop, { name: string; node: ListNode }[]>,
  decline: string,
): void {
  const values = reads.filter((read) => read.kind === 'value');
  for (const read of values) {
    out.add(ind, read.comment);
    out.add(ind, `const ${read.name} = ${data}[${lit(read.key)}];`);
  }
  declineAbsent(
    out,
    ind,
    values.map((v) => v.name),
    decline,
  );
  for (const read of reads) {
    const value = `${data}[${lit(read.key)}]`;
    if (read.kind === 'map') {
      out.add(ind, read.comment);
      out.add(ind, `const ${read.name} = ${value};`);
      out.add(ind, `if (${mapGuard(read.name, read.reads)}) ${decline}`);
      emitReads(out, ind, read.name, read.reads, lists, decline);
    } else if (read.kind === 'loop') {
      out.add(ind, read.comment);
      out.add(ind, `const ${read.name} = ${value};`);
      out.add(ind, `if (!Array.isArray(${read.name}) || ${read.name}.length === 0) ${decline}`);
      const made = lists.get(read.loop) ?? [];
      for (const list of made) out.add(ind, `const ${list.name} = [];`);
      out.add(ind, `for (let ${read.index} = 0; ${read.index} < ${read.name}.length; ${read.index}++) {`);
      out.add(ind + 1, read.elementComment);
      out.add(ind + 1, `const ${read.element} = ${read.name}[${read.index}];`);
      if (read.reads !== undefined) {
        out.add(ind + 1, `if (${mapGuard(read.element, read.reads)}) ${decline}`);
        emitReads(out, ind + 1, read.element, read.reads, lists, decline);
      }
      for (const list of made) {
        const element = list.node.element;
        if (element !== undefined) out.add(ind + 1, `${list.name}.push(${expression(element, lists, ind + 1)});`);
      }
      out.add(ind, `}`);
    }
  }
}

/** One test declining the input when any of `names` is undefined (one line a name when they are many). */
function declineAbsent(out: Lines, ind: number, names: readonly string[], decline: string): void {
  if (names.length === 0) return;
  const tests = names.map((name) => `${name} === undefined`);
  if (tests.join(' || ').length <= 80) {
    out.add(ind, `if (${tests.join(' || ')}) ${decline}`);
    return;
  }
  out.add(ind, `if (`);
  tests.forEach((test, i) => out.add(ind + 1, i < tests.length - 1 ? `${test} ||` : test));
  out.add(ind, `) ${decline}`);
}

/** An output node as a JS expression: object literals for maps (one entry a line). */
function expression(node: OutNode, lists: Map<Loop, { name: string; node: ListNode }[]>, ind: number): string {
  if (node.kind === 'value') return node.expr;
  if (node.kind === 'list') return lists.get(node.loop)?.find((l) => l.node === node)?.name ?? '[]';
  if (node.entries.size === 0) return '{}';
  const pad = '  '.repeat(ind + 1);
  const entries = [...node.entries].map(([k, v]) => `${pad}${propertyName(k)}: ${expression(v, lists, ind + 1)},`);
  return `{\n${entries.join('\n')}\n${'  '.repeat(ind)}}`;
}

/** A property name in an object literal (never `__proto__`: plainKey rules it out before). */
function propertyName(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : lit(key);
}
