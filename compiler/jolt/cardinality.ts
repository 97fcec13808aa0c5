/**
 * CardinalityTransform (`operation: "cardinality"`) to JavaScript: `"ONE"` turns a list into its
 * first element, `"MANY"` wraps a single value in a list; objects descend, `*` patterns match keys
 * (literal keys first), and an `@` key re-shapes the value of the enclosing key itself. In place.
 */
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, Program, isPlainObject, plainKey } from './emit.js';
import { canonicalOf, type PathElement } from './keys.js';
import { parseMatcher } from './remove.js';
import * as E from './errors.js';

interface Child {
  readonly pe: PathElement;
  readonly raw: string;
  readonly rhs: unknown;
  readonly path: JsonPath;
}

/** Compiles a cardinality spec; returns the name of the generated step function. */
export function compileCardinality(prog: Program, spec: unknown, path: JsonPath): string {
  const fn = prog.name('cardinality');
  if (!isPlainObject(spec)) {
    prog.error(E.specNotAnObject('cardinality'), path, 'value');
    return fn;
  }
  const rootFn = emitComposite(prog, spec, path, 0);
  prog.declare(
    `/** cardinality: makes values ONE or MANY (in place). */\nfunction ${fn}(input) {\n  ${rootFn}(undefined, "root", input);\n  return input;\n}`,
  );
  return fn;
}

function classify(raw: string): PathElement {
  if (raw.includes('@')) return { kind: 'at' };
  return parseMatcher(raw);
}

function leafCall(prog: Program, child: Child, value: string): string | undefined {
  if (child.rhs === 'ONE') return `J.one(parent, childKey, ${value})`;
  if (child.rhs === 'MANY') return `J.many(parent, childKey, ${value})`;
  prog.error(E.badCardinality(JSON.stringify(child.rhs)), child.path, 'value');
  return undefined;
}

/** `function (p, k, v)`: the composite matched key `k` of parent `p` holding `v`. */
function emitComposite(prog: Program, spec: Record<string, unknown>, path: JsonPath, depth: number): string {
  const fn = prog.name('card');
  if (depth > MAX_SPEC_DEPTH) {
    prog.error(E.nestedTooDeep(MAX_SPEC_DEPTH), path, 'key');
    prog.declare(`function ${fn}() {}`);
    return fn;
  }
  if (Object.keys(spec).length === 0) prog.error(E.emptyCardinalityObject(), path, 'value');
  const children: Child[] = [];
  const seen = new Set<string>();
  for (const raw of Object.keys(spec)) {
    const childPath = [...path, raw];
    const pe = classify(raw);
    const canonical = canonicalOf(pe);
    if (seen.has(canonical)) {
      prog.error(E.sameKeyTwice(raw), childPath, 'key');
      continue;
    }
    seen.add(canonical);
    children.push({ pe, raw, rhs: spec[raw], path: childPath });
  }
  const at = children.find((c) => c.pe.kind === 'at');
  const rest = children.filter((c) => c.pe.kind !== 'at');
  const computed = rest
    .filter((c) => c.pe.kind !== 'literal')
    .sort((a, b) => b.raw.length - a.raw.length || (a.raw < b.raw ? -1 : a.raw > b.raw ? 1 : 0));

  const out = new Lines();
  if (at) {
    if (isPlainObject(at.rhs)) prog.error(E.cardinalityAtWithChildren(), at.path, 'key');
    else {
      const call = leafCall(prog, at, 'data');
      if (call) out.add(1, `if (parent !== undefined) { const childKey = key; data = ${call}; }`);
    }
  }
  if (computed.length === 0) {
    // only literal keys: visit them directly instead of scanning every input key (same result)
    out.add(1, `if (J.isMap(data)) {`);
    for (const child of rest) {
      const key = lit(child.raw);
      const inline = plainKey(child.raw) ? inlineLeaf(child.rhs, `data[${key}]`) : undefined;
      // JSON values are never undefined, so a defined read of a plain key is an own key
      if (inline !== undefined)
        out.add(2, `{ const childValue = data[${key}]; if (childValue !== undefined) ${inline} }`);
      else {
        const read = `const parent = data, childKey = ${key}, childValue = data[childKey];`;
        const apply = applyChild(prog, child, depth);
        if (plainKey(child.raw)) out.add(2, `{ ${read} if (childValue !== undefined) { ${apply} } }`);
        else out.add(2, `if (J.has(data, ${key})) { ${read} ${apply} }`);
      }
    }
    const indexes = new Lines();
    for (const child of rest) {
      const index = /^\d+$/.test(child.raw) ? Number(child.raw) : -1;
      const read = `const parent = data, childKey = ${lit(child.raw)}, childValue = data[${index}];`;
      if (index >= 0) indexes.add(2, `if (${index} < data.length) { ${read} ${applyChild(prog, child, depth)} }`);
    }
    // a list is visited only when some key is an index
    if (!indexes.empty) {
      out.add(1, `} else if (Array.isArray(data)) {`);
      out.addAll(indexes);
    }
    out.add(1, `}`);
    prog.declare(
      `/** cardinality ${path.slice(2).join(' › ') || 'root'} */\nfunction ${fn}(parent, key, data) {\n${out.toString()}\n}`,
    );
    return fn;
  }
  const [only] = computed;
  if (rest.length === 1 && only?.pe.kind === 'star-all') {
    // `*` alone: every key, without matching (a list passes its index as a number, not as text)
    const apply = applyChild(prog, only, depth);
    out.add(1, prog.specLine(only.path, only.rhs));
    out.add(1, `if (Array.isArray(data)) {`);
    out.add(
      2,
      `for (let i = 0; i < data.length; i++) { const parent = data, childKey = i, childValue = data[i]; ${apply} }`,
    );
    out.add(1, `} else if (J.isMap(data)) {`);
    out.add(
      2,
      `for (const childKey of Object.keys(data)) { const parent = data, childValue = data[childKey]; ${apply} }`,
    );
    out.add(1, `}`);
    prog.declare(
      `/** cardinality ${path.slice(2).join(' › ') || 'root'} */\nfunction ${fn}(parent, key, data) {\n${out.toString()}\n}`,
    );
    return fn;
  }
  const visit = prog.name('visit');
  const match = new Lines();
  match.add(1, `switch (childKey) {`);
  for (const child of rest) {
    match.add(2, `case ${lit(child.raw)}: ${applyChild(prog, child, depth)} return;`);
  }
  match.add(1, `}`);
  for (const child of computed) {
    match.add(1, `if (${matchExpr(prog, child.pe)}) { ${applyChild(prog, child, depth)} return; }`);
  }
  const doc = `/** cardinality ${path.slice(2).join(' › ') || 'root'}: one key \`childKey\` of \`parent\` holding \`childValue\` */`;
  prog.declare(`${doc}\nfunction ${visit}(parent, childKey, childValue) {\n${match.toString()}\n}`);
  out.add(1, `if (Array.isArray(data)) { for (let i = 0; i < data.length; i++) ${visit}(data, String(i), data[i]); }`);
  out.add(
    1,
    `else if (J.isMap(data)) { for (const childKey of Object.keys(data)) ${visit}(data, childKey, data[childKey]); }`,
  );
  prog.declare(
    `/** cardinality ${path.slice(2).join(' › ') || 'root'} */\nfunction ${fn}(parent, key, data) {\n${out.toString()}\n}`,
  );
  return fn;
}

/**
 * ONE/MANY of a present value `vv` written back with `target` (an assignable expression), as
 * statements: the inline form of J.one/J.many when the parent is known to be a map.
 */
function inlineLeaf(rhs: unknown, target: string): string | undefined {
  if (rhs === 'ONE') return `if (Array.isArray(childValue)) ${target} = childValue.length > 0 ? childValue[0] : null;`;
  if (rhs === 'MANY') return `if (!Array.isArray(childValue)) ${target} = childValue === null ? [] : [childValue];`;
  return undefined;
}

/** Each child object is compiled once although it is reachable by key and by pattern. */
const compiledChildren = new WeakMap<Child, string>();

function applyChild(prog: Program, child: Child, depth: number): string {
  if (isPlainObject(child.rhs)) {
    let fn = compiledChildren.get(child);
    if (fn === undefined) {
      fn = emitComposite(prog, child.rhs, child.path, depth + 1);
      compiledChildren.set(child, fn);
    }
    return `${fn}(parent, childKey, childValue);`;
  }
  const call = leafCall(prog, child, 'childValue');
  return call ? `${call};` : '';
}

function matchExpr(prog: Program, pe: PathElement): string {
  switch (pe.kind) {
    case 'star-all':
      return 'true';
    case 'star-single':
      return (
        `childKey.length > ${pe.prefix.length + pe.suffix.length} && ` +
        `childKey.startsWith(${lit(pe.prefix)}) && childKey.endsWith(${lit(pe.suffix)})`
      );
    case 'star-double':
      return `J.star2(childKey, ${lit(pe.prefix)}, ${lit(pe.mid)}, ${lit(pe.suffix)}) !== null`;
    case 'star-regex': {
      const parts = prog.name('SP');
      prog.declare(`const ${parts} = ${JSON.stringify(pe.parts)};`);
      return `J.starN(childKey, ${parts}) !== null`;
    }
    default:
      return 'false';
  }
}
