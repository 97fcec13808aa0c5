/**
 * Removr (`operation: "remove"`) to JavaScript: removes the keys (or list indexes) the spec names,
 * with `*` wildcards, in place. A leaf's value must be `""`; an object descends. List indexes are
 * removed biggest first so that one removal does not shift the next.
 */
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, Program, isPlainObject, splitOr } from './emit.js';
import type { StarElement } from './keys.js';
import * as E from './errors.js';

export type Matcher = { readonly kind: 'literal'; readonly key: string } | StarElement;

export interface Node {
  readonly matcher: Matcher;
  readonly children?: readonly Node[];
  readonly path: JsonPath;
}

/** Removr/Cardinality key: `*` patterns or a literal (no escapes, no references). */
export function parseMatcher(key: string): Matcher {
  if (key === '*') return { kind: 'star-all' };
  const stars = key.split('*').length - 1;
  if (stars === 0) return { kind: 'literal', key };
  if (stars === 1) {
    const at = key.indexOf('*');
    return { kind: 'star-single', raw: key, prefix: key.slice(0, at), suffix: key.slice(at + 1) };
  }
  const parts = key.split('*');
  if (stars === 2)
    return { kind: 'star-double', raw: key, prefix: parts[0] ?? '', mid: parts[1] ?? '', suffix: parts[2] ?? '' };
  return { kind: 'star-regex', raw: key, parts, groups: stars };
}

export function parseNodes(prog: Program, spec: Record<string, unknown>, path: JsonPath, depth: number): Node[] {
  const nodes: Node[] = [];
  for (const raw of Object.keys(spec)) {
    const rhs = spec[raw];
    const childPath = [...path, raw];
    if (depth > MAX_SPEC_DEPTH) {
      prog.error(E.nestedTooDeep(MAX_SPEC_DEPTH), childPath, 'key');
      return nodes;
    }
    for (const key of splitOr(raw)) {
      if (isPlainObject(rhs))
        nodes.push({
          matcher: parseMatcher(key),
          children: parseNodes(prog, rhs, childPath, depth + 1),
          path: childPath,
        });
      else if (typeof rhs === 'string' && rhs.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '') === '')
        nodes.push({ matcher: parseMatcher(key), path: childPath });
      else prog.error(E.badRemoveValue(raw), childPath, 'value');
    }
  }
  return nodes;
}

/** Compiles a remove spec; returns the name of the generated step function. */
export function compileRemove(prog: Program, spec: unknown, path: JsonPath): string {
  const fn = prog.name('remove');
  if (!isPlainObject(spec)) {
    prog.error(E.specNotAnObject('remove'), path, 'value');
    return fn;
  }
  const rootFn = emitProcess(prog, parseNodes(prog, spec, path, 0), path);
  prog.declare(
    `/** remove: deletes the named keys and indexes (in place). */\nfunction ${fn}(input) {\n  ${rootFn}(input);\n  return input;\n}`,
  );
  return fn;
}

function matchExpr(prog: Program, m: Matcher, key: string): string {
  switch (m.kind) {
    case 'literal':
      return `${key} === ${lit(m.key)}`;
    case 'star-all':
      return 'true';
    case 'star-single':
      return `${key}.length > ${m.prefix.length + m.suffix.length} && ${key}.startsWith(${lit(m.prefix)}) && ${key}.endsWith(${lit(m.suffix)})`;
    case 'star-double':
      return `J.star2(${key}, ${lit(m.prefix)}, ${lit(m.mid)}, ${lit(m.suffix)}) !== null`;
    case 'star-regex': {
      const parts = prog.name('SP');
      prog.declare(`const ${parts} = ${JSON.stringify(m.parts)};`);
      return `J.starN(${key}, ${parts}) !== null`;
    }
  }
}

function listIndexOf(m: Matcher): number | undefined {
  if (m.kind !== 'literal' || !/^[+-]?\d+$/.test(m.key)) return undefined;
  const n = Number(m.key);
  return n >= 0 && n <= 2147483647 ? n : undefined;
}

/** `function (x)`: applies `nodes` to `x` (a map or list; anything else is left alone). */
function emitProcess(prog: Program, nodes: readonly Node[], path: JsonPath): string {
  const fn = prog.name('prune');
  // each child object becomes one function, called from both the list and the map branch
  const subs = new Map<Node, string>();
  for (const node of nodes) if (node.children) subs.set(node, emitProcess(prog, node.children, node.path));
  const out = new Lines();
  const listNodes = nodes.filter((n) => listIndexOf(n.matcher) !== undefined || n.matcher.kind === 'star-all');
  if (listNodes.length > 0) {
    out.add(1, `if (Array.isArray(data)) {`);
    const drops = listNodes.some((n) => !n.children);
    if (drops) out.add(2, `const drop = [];`);
    for (const node of listNodes) {
      const index = listIndexOf(node.matcher);
      const sub = subs.get(node);
      if (index !== undefined) {
        out.add(2, `if (${index} < data.length) ${sub ? `${sub}(data[${index}]);` : `drop.push(${index});`}`);
      } else {
        out.add(2, sub ? `for (const e of data) ${sub}(e);` : `for (let i = 0; i < data.length; i++) drop.push(i);`);
      }
    }
    if (drops) out.add(2, `J.removeIndices(data, drop);`);
    out.add(1, `} else if (J.isMap(data)) {`);
  } else out.add(1, `if (J.isMap(data)) {`);
  // Removals wait until every pattern has seen the keys; with distinct literal keys only, nothing
  // else looks at a key afterwards, so each key is deleted as soon as it is found.
  const literals = new Set(nodes.map((n) => (n.matcher.kind === 'literal' ? n.matcher.key : '*')));
  const deferred = nodes.some((n) => n.matcher.kind !== 'literal') || literals.size < nodes.length;
  if (deferred) out.add(2, `const drop = [];`);
  for (const node of nodes) {
    const sub = subs.get(node);
    if (node.matcher.kind === 'literal') {
      const k = lit(node.matcher.key);
      const action = sub ? `${sub}(data[${k}]);` : deferred ? `drop.push(${k});` : `delete data[${k}];`;
      out.add(2, `if (J.has(data, ${k})) ${action}`);
    } else {
      const act = sub ? `${sub}(data[k]);` : 'drop.push(k);';
      out.add(2, `for (const k of Object.keys(data)) if (${matchExpr(prog, node.matcher, 'k')}) ${act}`);
    }
  }
  if (deferred) out.add(2, `J.removeKeys(data, drop);`);
  out.add(1, `}`);
  prog.declare(`/** remove ${path.slice(2).join(' › ') || 'root'} */\nfunction ${fn}(data) {\n${out.toString()}\n}`);
  return fn;
}
