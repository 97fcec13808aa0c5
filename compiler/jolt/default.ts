/**
 * Defaultr (`operation: "default"`) to JavaScript: walks the spec, not the input. Literal keys add
 * missing (or null) values, `a|b` keys apply to whichever of a and b exist, `*` to every existing key,
 * `key[]` declares that the value is a list whose children are indexes. Applied in place, in Jolt's
 * precedence order (literals, then `|` keys by size and name, then `*`); defaults are deep-copied.
 */
import { compareUtf16 } from '../../runtime/jolt/java.js';
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, Program, isPlainObject, plainKey } from './emit.js';
import * as E from './errors.js';

type Op = 'literal' | 'or' | 'star';

export interface Key {
  readonly raw: string;
  readonly isArray: boolean;
  readonly op: Op;
  readonly names: readonly string[];
  /** Child keys when the spec value is an object (then `literal` is unused). */
  readonly children?: readonly Key[];
  readonly literal?: unknown;
  readonly path: JsonPath;
  /** Largest literal child index when this key is `name[]`. */
  readonly maxIndex: number;
}

class KeyError extends Error {}

function parseKey(
  prog: Program,
  raw: string,
  spec: unknown,
  path: JsonPath,
  parentIsArray: boolean,
  depth: number,
  report: boolean,
): Key {
  const isArray = raw.endsWith('[]');
  const name = isArray ? raw.split('[]').join('') : raw;
  let op: Op = 'literal';
  if (name.includes('*')) {
    if (name !== '*') {
      if (report) prog.error(E.badDefaultStar(raw), path, 'key');
      throw new KeyError();
    }
    op = 'star';
  } else if (name.includes('|')) op = 'or';
  const names = op === 'star' ? [] : op === 'or' ? name.split('|') : [name];
  if (parentIsArray && op !== 'star' && names.some((n) => !/^[+-]?\d+$/.test(n))) {
    if (report) prog.error(E.defaultKeyNotAnIndex(raw), path, 'key');
    throw new KeyError();
  }
  if (depth > MAX_SPEC_DEPTH) {
    if (report) prog.error(E.nestedTooDeep(MAX_SPEC_DEPTH), path, 'key');
    throw new KeyError();
  }
  if (!isPlainObject(spec)) return { raw, isArray, op, names, literal: spec, path, maxIndex: -1 };
  const children: Key[] = [];
  let failed = false;
  for (const childRaw of Object.keys(spec)) {
    try {
      children.push(parseKey(prog, childRaw, spec[childRaw], [...path, childRaw], isArray, depth + 1, report));
    } catch (e) {
      if (!(e instanceof KeyError)) throw e;
      failed = true;
    }
  }
  if (failed) throw new KeyError();
  const maxIndex = isArray
    ? Math.max(-1, ...children.filter((c) => c.op === 'literal').map((c) => Number(c.raw.replace('[]', ''))))
    : -1;
  return { raw, isArray, op, names, children, path, maxIndex };
}

const OP_RANK: Record<Op, number> = { literal: 0, or: 1, star: 2 };

export function precedence(a: Key, b: Key): number {
  if (a.op !== b.op) return OP_RANK[a.op] - OP_RANK[b.op];
  if (a.op === 'or')
    return a.names.length !== b.names.length ? a.names.length - b.names.length : compareUtf16(a.raw, b.raw);
  return 0;
}

/** The spec as keys below a map root, or undefined when it has a problem (reported by compileDefault). */
export function parseDefaultSpec(prog: Program, spec: unknown, path: JsonPath): Key | undefined {
  if (!isPlainObject(spec)) return undefined;
  try {
    return parseKey(prog, 'root', spec, path, false, 0, false);
  } catch (e) {
    if (e instanceof KeyError) return undefined;
    throw e;
  }
}

/** Compiles a default spec; returns the name of the generated step function. */
export function compileDefault(prog: Program, spec: unknown, path: JsonPath): string {
  const fn = prog.name('defaults');
  if (!isPlainObject(spec)) {
    prog.error(E.specNotAnObject('default'), path, 'value');
    return fn;
  }
  let mapRoot: Key;
  try {
    mapRoot = parseKey(prog, 'root', spec, path, false, 0, true);
  } catch (e) {
    if (e instanceof KeyError) return fn;
    throw e;
  }
  let arrayRoot: Key | undefined;
  try {
    arrayRoot = parseKey(prog, 'root[]', spec, path, false, 0, false);
  } catch (e) {
    if (!(e instanceof KeyError)) throw e;
  }
  const mapFn = emitApplyChildren(prog, mapRoot);
  const arrayFn = arrayRoot ? emitApplyChildren(prog, arrayRoot) : undefined;
  const lines = new Lines();
  lines.add(0, `/** default: fills in missing values (applied in place). */`);
  lines.add(0, `function ${fn}(input) {`);
  lines.add(1, `const data = input === null || input === undefined ? {} : input;`);
  lines.add(1, `if (Array.isArray(data)) {`);
  if (arrayFn) lines.add(2, `${arrayFn}(data);`);
  else lines.add(2, `J.fail("this default spec has non-index keys, so it cannot apply to a top-level list");`);
  lines.add(1, `} else {`);
  lines.add(2, `${mapFn}(data);`);
  lines.add(1, `}`);
  lines.add(1, `return data;`);
  lines.add(0, `}`);
  prog.declare(lines.toString());
  return fn;
}

/** `function (c)` applying a key's children to container `c`. */
function emitApplyChildren(prog: Program, key: Key): string {
  const fn = prog.name('fill');
  const out = new Lines();
  if (key.isArray && key.maxIndex >= 0) {
    out.add(1, `if (Array.isArray(data)) while (data.length < ${key.maxIndex + 1}) data.push(null);`);
  }
  const children = [...(key.children ?? [])].sort(precedence);
  for (const child of children) {
    if (key.isArray) emitArrayChild(prog, out, child);
    else emitMapChild(prog, out, child);
  }
  prog.declare(
    `/** default ${key.path.slice(2).join(' › ') || 'root'} */\nfunction ${fn}(data) {\n${out.toString()}\n}`,
  );
  return fn;
}

/** The statements applying `child` at key expression `k` of container `c` (the key exists or is literal). */
function applyAt(prog: Program, out: Lines, ind: number, child: Key, read: string, write: (v: string) => string): void {
  out.add(ind, prog.specLine(child.path, child.children === undefined ? child.literal : {}));
  out.add(ind, `{`);
  out.add(ind + 1, `let value = ${read};`);
  if (child.children === undefined) {
    out.add(ind + 1, `if (value === null || value === undefined) ${write(prog.freshValue(child.literal))}`);
  } else {
    const fresh = child.isArray ? '[]' : '{}';
    out.add(ind + 1, `if (value === null || value === undefined) { value = ${fresh}; ${write('value')} }`);
    out.add(ind + 1, `${emitApplyChildren(prog, child)}(value);`);
  }
  out.add(ind, `}`);
}

function emitMapChild(prog: Program, out: Lines, child: Key): void {
  out.add(1, `if (J.isMap(data)) {`);
  if (child.op === 'literal') {
    const name = child.names[0] ?? '';
    const k = lit(name);
    if (plainKey(name)) applyAt(prog, out, 2, child, `data[${k}]`, (v) => `data[${k}] = ${v};`);
    else applyAt(prog, out, 2, child, `J.has(data, ${k}) ? data[${k}] : undefined`, (v) => `J.set(data, ${k}, ${v});`);
  } else {
    const source =
      child.op === 'star' ? 'Object.keys(data)' : `${prog.constant(child.names)}.filter((n) => J.has(data, n))`;
    out.add(2, `for (const k of ${source}) {`);
    applyAt(prog, out, 3, child, 'data[k]', (v) => `J.set(data, k, ${v});`);
    out.add(2, `}`);
  }
  out.add(1, `}`);
}

function emitArrayChild(prog: Program, out: Lines, child: Key): void {
  out.add(1, `if (Array.isArray(data)) {`);
  if (child.op === 'literal') {
    const i = Number(child.names[0]);
    if (i >= 0) applyAt(prog, out, 2, child, `data[${i}]`, (v) => `data[${i}] = ${v};`);
  } else {
    if (child.op === 'star') out.add(2, `for (let i = 0; i < data.length; i++) {`);
    else
      out.add(
        2,
        `for (const i of ${prog.constant(child.names.map(Number))}.filter((i) => i >= 0 && i < data.length)) {`,
      );
    applyAt(prog, out, 3, child, 'data[i]', (v) => `data[i] = ${v};`);
    out.add(2, `}`);
  }
  out.add(1, `}`);
}
