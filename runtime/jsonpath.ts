/**
 * JSONPath for Choice conditions, for-each and Double Braces' JSONPATH, with the semantics Digibee
 * users expect from Jayway JsonPath: a filter `[?(…)]` applied to an OBJECT tests the object itself
 * (so `$.body[?(@.total < 500)]` matches when body.total < 500), while on an array it tests each
 * element. A path "matches" when it yields at least one node.
 *
 * Linear in the input: paths are parsed once (`compileJsonPath`, when a pipeline module loads) and
 * evaluated here one segment at a time over the list of selected nodes, without recursion; a deep
 * scan (`..`) visits every container once, however many scans the path has. (jsonpath-plus, which
 * evaluated paths before, copied the path array at every level and took 29 s for
 * `$..[?(@.flag == true)]` on 96 KB of nesting.) jsonpath-plus still splits the path; filter
 * expressions are compiled once into closures (jsonpath-filter.ts). The work counts towards the
 * execution's deadline.
 */
import { JSONPath } from 'jsonpath-plus';
import type { Json } from './types.js';
import { compileExpression, type CompiledExpression, type FilterScope } from './jsonpath-filter.js';
import { tick } from './work-meter.js';

export type Segment =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'names'; readonly names: readonly string[] }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'descend' }
  | {
      readonly kind: 'slice';
      readonly start: number | undefined;
      readonly end: number | undefined;
      readonly step: number;
    }
  | { readonly kind: 'filter'; readonly script: CompiledExpression; readonly afterDescend: boolean }
  | { readonly kind: 'script'; readonly script: CompiledExpression };

export interface CompiledJsonPath {
  readonly source: string;
  readonly segments: readonly Segment[];
}

export interface JsonPathOptions {
  /**
   * How a filter treats an object: `self` (Jayway, Choice and for-each) tests the object itself;
   * `members` (jsonpath-plus, Double Braces' JSONPATH) tests each of its values.
   */
  readonly objectFilter?: 'self' | 'members';
}

/**
 * Longest path accepted. Paths are short; the bound keeps jsonpath-plus's splitter (regular
 * expressions of its own) quick on a path that comes from the data.
 */
export const MAX_PATH_LENGTH = 2_000;

/** Parses a path once; throws an Error naming what is wrong (the compiler reports it as PIPE5501). */
export function compileJsonPath(source: string): CompiledJsonPath {
  if (source.length > MAX_PATH_LENGTH) throw new Error(`the path is longer than ${MAX_PATH_LENGTH} characters`);
  const unbalanced = balanceProblem(source);
  if (unbalanced !== undefined) throw new Error(unbalanced);
  const raw = JSONPath.toPathArray(normalizeJsonPath(source)) as string[];
  // `@` (the current value) is the root too where a path stands alone (Double Braces' JSONPATH).
  if (raw[0] !== '$' && raw[0] !== '@') throw new Error('a JSONPath starts with `$`');
  const segments: Segment[] = [];
  for (const text of raw.slice(1)) {
    const previous = segments[segments.length - 1];
    segments.push(compileSegment(text, previous?.kind === 'descend'));
  }
  return { source, segments };
}

/**
 * An unclosed `[`, `(` or quote, or a stray `]` or `)`: jsonpath-plus's splitter would cut such a
 * path somewhere arbitrary (`$.a[?(@.q > 1)` becomes the segments `a`, `?(@`, `q > 1)`).
 */
function balanceProblem(source: string): string | undefined {
  let square = 0;
  let round = 0;
  let quote: string | undefined;
  let escaped = false;
  for (const ch of source) {
    if (quote !== undefined) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[') square++;
    else if (ch === ']') square--;
    else if (ch === '(') round++;
    else if (ch === ')') round--;
    if (square < 0) return 'unexpected `]`';
    if (round < 0) return 'unexpected `)`';
  }
  if (quote !== undefined) return 'unterminated string';
  if (square > 0) return 'missing `]`';
  if (round > 0) return 'missing `)`';
  return undefined;
}

/**
 * Jayway reads `$.[…]` as `$[…]`; jsonpath-plus would read it as `$..[…]` (descendants).
 * Only a single dot before `[` is rewritten. Line breaks outside quotes become spaces: to Jayway
 * they are whitespace, while jsonpath-plus's splitter cuts a filter at a line break before `.` or
 * `[` (`@.a &&⏎@.b[0]`) or inside a string, which then silently matched nothing.
 */
export function normalizeJsonPath(source: string): string {
  return unbrokenLines(source).replace(/(?<!\.)\.\[/g, '[');
}

/**
 * `source` with each line break inside a filter or script (`?(…)`, `(…)`) replaced: by a space outside a
 * quoted string, by its escape inside one (the expression parser reads it back). Elsewhere (a quoted
 * member name, `$['a⏎b']`) the text is a name, taken as written.
 */
function unbrokenLines(source: string): string {
  if (!/[\r\n\u2028\u2029]/u.test(source)) return source;
  let out = '';
  let quote: string | undefined;
  let escaped = false;
  let round = 0;
  for (const ch of source) {
    if (quote !== undefined) {
      const wasEscaped: boolean = escaped;
      escaped = !wasEscaped && ch === '\\';
      if (!wasEscaped && ch === quote) quote = undefined;
      const asEscape = round > 0 && !wasEscaped;
      out += asEscape && ch === '\n' ? '\\n' : asEscape && ch === '\r' ? '\\r' : ch;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') round++;
    else if (ch === ')') round--;
    const lineBreak = ch === '\r' || ch === '\n' || ch === '\u2028' || ch === '\u2029';
    out += round > 0 && lineBreak ? ' ' : ch;
  }
  return out;
}

function compileSegment(text: string, afterDescend: boolean): Segment {
  if (text === '..') return { kind: 'descend' };
  if (text === '*') return { kind: 'wildcard' };
  if (text.startsWith('?(') && text.endsWith(')'))
    return { kind: 'filter', script: compileScript(text.slice(2, -1)), afterDescend };
  if (text.startsWith('(') && text.endsWith(')')) return { kind: 'script', script: compileScript(text.slice(1, -1)) };
  const slice = /^(-?\d*):(-?\d*)(?::(-?\d*))?$/.exec(text);
  if (slice) {
    const number = (t: string | undefined): number | undefined => (t === undefined || t === '' ? undefined : Number(t));
    const step = number(slice[3]) ?? 1;
    if (step === 0) throw new Error('a slice step cannot be 0');
    return { kind: 'slice', start: number(slice[1]), end: number(slice[2]), step };
  }
  if (text.includes(',')) {
    // jsonpath-plus's splitter has already taken the outermost quotes: `['a','b']` arrives as `a','b`.
    return { kind: 'names', names: text.split(',').map((n) => n.trim().replace(/^['"]|['"]$/g, '')) };
  }
  return { kind: 'name', name: text };
}

function compileScript(code: string): CompiledExpression {
  if (code.includes('@path')) throw new Error('`@path` is not supported in JSONPath filters');
  const script = code
    .replaceAll('@parentProperty', '_$_parentProperty')
    .replaceAll('@parent', '_$_parent')
    .replaceAll('@property', '_$_property')
    .replaceAll('@root', '_$_root')
    .replaceAll(/@([.\s)[]|$)/gu, '_$_v$1');
  try {
    return compileExpression(script);
  } catch (err) {
    throw new Error(`cannot parse the filter \`${code}\`: ${err instanceof Error ? err.message : String(err)}`);
  }
}

type Container = Record<string, Json> | Json[];

function isContainer(value: Json | undefined): value is Container {
  return value !== null && typeof value === 'object';
}

const hasOwn = Object.prototype.hasOwnProperty;

/** All nodes the path selects, in document order. */
export function jsonPathQuery(path: CompiledJsonPath, json: Json, options: JsonPathOptions = {}): Json[] {
  const objectFilter = options.objectFilter ?? 'self';
  let nodes: Json[] = [json];
  for (const segment of path.segments) {
    nodes = applySegment(segment, nodes, json, objectFilter);
    if (nodes.length === 0) break;
  }
  return nodes;
}

export function jsonPathMatches(path: CompiledJsonPath, json: Json): boolean {
  return jsonPathQuery(path, json).length > 0;
}

function applySegment(segment: Segment, nodes: readonly Json[], root: Json, objectFilter: 'self' | 'members'): Json[] {
  const out: Json[] = [];
  switch (segment.kind) {
    case 'descend':
      return descendants(nodes);
    case 'name':
      for (const node of nodes) {
        tick();
        const child = member(node, segment.name);
        if (child !== undefined) out.push(child);
      }
      return out;
    case 'names':
      for (const node of nodes) {
        for (const name of segment.names) {
          tick();
          const child = member(node, name);
          if (child !== undefined) out.push(child);
        }
      }
      return out;
    case 'wildcard':
      for (const node of nodes) pushMembers(node, out);
      return out;
    case 'slice':
      for (const node of nodes) if (Array.isArray(node)) pushSlice(node, segment, out);
      return out;
    case 'script':
      for (const node of nodes) {
        if (!isContainer(node)) continue;
        const key = run(segment.script, node, undefined, undefined, root);
        const child = typeof key === 'number' || typeof key === 'string' ? member(node, String(key)) : undefined;
        if (child !== undefined) out.push(child);
      }
      return out;
    case 'filter':
      for (const node of nodes) {
        if (Array.isArray(node) || (isContainer(node) && (segment.afterDescend || objectFilter === 'members'))) {
          filterMembers(node, segment.script, root, out);
        } else if (isContainer(node) && truthy(run(segment.script, node, undefined, undefined, root))) {
          // Jayway: a filter on an object tests the object itself.
          out.push(node);
        }
      }
      return out;
  }
}

/** An own member (array index or object key); inherited names such as `constructor` are absent. */
function member(node: Json, name: string): Json | undefined {
  if (!isContainer(node)) return undefined;
  if (Array.isArray(node)) {
    if (name === 'length') return node.length;
    const index = /^-?\d+$/.test(name) ? Number(name) : Number.NaN;
    if (!Number.isInteger(index)) return undefined;
    return node[index < 0 ? node.length + index : index];
  }
  return hasOwn.call(node, name) ? node[name] : undefined;
}

function pushMembers(node: Json, out: Json[]): void {
  if (Array.isArray(node)) {
    tick(node.length + 1);
    for (const item of node) out.push(item);
  } else if (isContainer(node)) {
    for (const key in node) {
      tick();
      if (hasOwn.call(node, key)) out.push(node[key] as Json);
    }
  }
}

function pushSlice(list: readonly Json[], slice: Extract<Segment, { kind: 'slice' }>, out: Json[]): void {
  const n = list.length;
  const clamp = (i: number): number => (i < 0 ? Math.max(0, n + i) : Math.min(n, i));
  if (slice.step > 0) {
    const end = slice.end === undefined ? n : clamp(slice.end);
    for (let i = slice.start === undefined ? 0 : clamp(slice.start); i < end; i += slice.step) {
      tick();
      out.push(list[i] as Json);
    }
  } else {
    const start = slice.start === undefined ? n - 1 : Math.min(n - 1, slice.start < 0 ? n + slice.start : slice.start);
    const end = slice.end === undefined ? -1 : slice.end < 0 ? Math.max(-1, n + slice.end) : slice.end;
    for (let i = start; i > end; i += slice.step) {
      tick();
      out.push(list[i] as Json);
    }
  }
}

/**
 * Every container at or below the given nodes, in document order (pre-order), each once: a deep
 * scan after another deep scan finds nothing new, so `$..a..b` stays linear.
 */
function descendants(nodes: readonly Json[]): Json[] {
  const out: Json[] = [];
  // From one node no container can be reached twice: only several starting nodes need the check.
  const seen = nodes.length > 1 ? new Set<Container>() : undefined;
  const stack: Json[] = [];
  for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i] as Json);
  while (stack.length > 0) {
    const node = stack.pop() as Json;
    if (!isContainer(node) || seen?.has(node)) continue;
    seen?.add(node);
    out.push(node);
    tick();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) if (isContainer(node[i])) stack.push(node[i] as Json);
    } else {
      const keys = Object.keys(node);
      tick(keys.length);
      for (let i = keys.length - 1; i >= 0; i--) {
        const child = node[keys[i] as string];
        if (isContainer(child)) stack.push(child as Json);
      }
    }
  }
  return out;
}

function filterMembers(node: Container, script: CompiledExpression, root: Json, out: Json[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      if (truthy(run(script, item, node, i, root))) out.push(item);
    });
    return;
  }
  for (const key in node) {
    if (!hasOwn.call(node, key)) continue;
    const item = node[key] as Json;
    if (truthy(run(script, item, node, key, root))) out.push(item);
  }
}

/** Evaluates a filter or script for one node (a member of a missing value is undefined, as in Jayway). */
function run(
  script: CompiledExpression,
  value: Json,
  parent: Container | undefined,
  property: string | number | undefined,
  root: Json,
): unknown {
  tick();
  // One scope object for all evaluations: they run one at a time, and none keeps it.
  scope.v = value;
  scope.parent = parent;
  scope.property = property;
  scope.root = root;
  return script(scope);
}

const scope: FilterScope = { v: undefined, parent: undefined, property: undefined, root: undefined };

function truthy(value: unknown): boolean {
  return Boolean(value);
}
