/**
 * Shiftr (`operation: "shift"`) to JavaScript. Each spec object becomes one generated function that
 * walks the matching part of the input: literal keys become property reads, wildcards become loops
 * with prefix/suffix tests (or a hoisted RegExp), references become expressions over the walked-path
 * slots. Precedence follows Jolt: literal keys beat computed ones (`&` keys, then the most specific
 * `*` patterns), `@`/`$`/`#` keys always run. Values are moved into the output, never copied.
 */
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, Program, isPlainObject, plainKey, splitOr } from './emit.js';
import { canonicalOf, isStar, parseKey, parseOutputPath, type PathElement, SpecError, starMatches } from './keys.js';
import { compareUtf16 } from '../../runtime/jolt/java.js';
import { type CaptureKind, evaluateExpr, type Level, isInvariant, OWN_KEY, readExpr, Scope, writeSteps, arrayIndexExpr, type WriteStep } from './walk.js';


interface Child {
  readonly pe: PathElement;
  readonly rhs: unknown;
  readonly path: JsonPath;
  readonly composite: boolean;
  /** Output paths of a leaf (empty for a null right-hand side). */
  readonly outputs: readonly (readonly PathElement[])[];
}

/** Each child object is compiled once even though the map, list and scalar branches all call it. */
const compiledChildren = new WeakMap<Child, string>();

const COMPUTED_ORDER: Record<string, number> = { amp: 1, array: 1, 'star-regex': 2, 'star-double': 3, 'star-single': 4, 'star-all': 5 };

/**
 * What a shift emitter writes with and into: the chain's program (declarations, names,
 * diagnostics), the lines of the function being generated and the indentation there, the spec
 * levels in scope, the level of the spec object being compiled and how deep the spec is nested.
 */
interface Emit {
  readonly prog: Program;
  readonly out: Lines;
  readonly ind: number;
  readonly scope: Scope;
  readonly level: number;
  readonly depth: number;
}

/** The same emitter, `by` steps deeper in the generated code. */
function inner(e: Emit, by = 1): Emit {
  return { ...e, ind: e.ind + by };
}

/** The children of one spec object by how they match an input key (see strategyOf). */
interface Children {
  readonly strategy: Strategy;
  readonly literals: readonly Child[];
  readonly computed: readonly Child[];
}

/**
 * How a child matched: `capture` the expression of its `*` captures, `listIndex` the index
 * (variable or literal) when the key is a list index, `container` the write it shares (emitPut).
 */
interface Match {
  readonly capture?: string;
  readonly listIndex?: string;
  readonly container?: SharedContainer;
}

/** Compiles a shift spec; returns the name of the generated step function `(input) => output`. */
export function compileShift(prog: Program, spec: unknown, path: JsonPath): string {
  const fn = prog.name('shift');
  if (!isPlainObject(spec)) {
    prog.error('PIPE5006', path, 'value', 'the spec of a `shift` must be an object of input keys');
    return fn;
  }
  // match counts cost a store per matched key; they are kept only when some `[#n]` may read them
  const counts = /\[\s*#/.test(JSON.stringify(spec));
  const root = new Scope([{ owner: 0, capture: 'none', groups: 0 }], new Map(), prog, counts);
  const rootFn = compileComposite(prog, { spec, path, outer: root, level: 1, self: { owner: 1, capture: 'none', groups: 0 }, depth: 0 });
  prog.declare(
    [
      `/** shift: walks the input along the spec and moves matched values into a new output. */`,
      `function ${fn}(input) {`,
      `  const S = J.shiftState(input);`,
      `  ${rootFn}(S, "root", undefined, input);`,
      `  return J.shiftResult(S);`,
      `}`,
    ].join('\n'),
  );
  return fn;
}

function parseChildren(prog: Program, spec: Record<string, unknown>, path: JsonPath): Child[] {
  const children: Child[] = [];
  const seen = new Set<string>();
  for (const rawKey of Object.keys(spec)) {
    const rhs = spec[rawKey];
    const childPath = [...path, rawKey];
    for (const keyText of splitOr(rawKey)) {
      let pe: PathElement;
      try {
        pe = parseKey(keyText);
      } catch (e) {
        if (e instanceof SpecError) {
          prog.error(e.code, childPath, 'key', e.message);
          continue;
        }
        throw e;
      }
      const canonical = canonicalOf(pe);
      if (seen.has(canonical)) {
        prog.error('PIPE5011', childPath, 'key', `the key \`${keyText}\` is the same as another key of this object (\`${canonical}\`)`);
        continue;
      }
      seen.add(canonical);
      const child = makeChild(prog, pe, rhs, childPath, keyText);
      if (child) children.push(child);
    }
  }
  return children;
}

function makeChild(prog: Program, pe: PathElement, rhs: unknown, path: JsonPath, keyText: string): Child | undefined {
  if (isPlainObject(rhs)) {
    if (pe.kind === 'at' || pe.kind === 'dollar') {
      prog.error('PIPE5007', path, 'key', `the key \`${keyText}\` cannot have children: \`@\` and \`$\` keys are leaves`);
      return undefined;
    }
    if (Object.keys(rhs).length === 0) {
      prog.error('PIPE5012', path, 'value', `the key \`${keyText}\` has an empty object as its value`);
      return undefined;
    }
    return { pe, rhs, path, composite: true, outputs: [] };
  }
  const texts = rhs === null ? [] : typeof rhs === 'string' ? [rhs] : Array.isArray(rhs) ? rhs : undefined;
  if (texts === undefined) {
    prog.error('PIPE5010', path, 'value', `the value of \`${keyText}\` must be an output path, a list of paths, null or an object`);
    return undefined;
  }
  const outputs: PathElement[][] = [];
  texts.forEach((text, i) => {
    const where = Array.isArray(rhs) ? [...path, i] : path;
    if (typeof text !== 'string') {
      prog.error('PIPE5010', where, 'value', `the output paths of \`${keyText}\` must be strings`);
      return;
    }
    try {
      outputs.push(parseOutputPath(text));
    } catch (e) {
      if (e instanceof SpecError) prog.error(e.code, where, 'value', e.message);
      else throw e;
    }
  });
  return { pe, rhs, path, composite: false, outputs };
}

function computedCompare(a: Child, b: Child): number {
  const oa = COMPUTED_ORDER[a.pe.kind] ?? 9;
  const ob = COMPUTED_ORDER[b.pe.kind] ?? 9;
  if (oa !== ob) return oa - ob;
  const ca = canonicalOf(a.pe);
  const cb = canonicalOf(b.pe);
  if (ca.length !== cb.length) return cb.length - ca.length;
  return compareUtf16(ca, cb);
}

type Strategy = 'literals' | 'computed' | 'conflict' | 'both';

function strategyOf(literals: readonly Child[], computed: readonly Child[]): Strategy {
  if (computed.length === 0) return 'literals';
  if (literals.length === 0) return 'computed';
  for (const c of computed) {
    if (!isStar(c.pe)) return 'conflict';
    const star = c.pe;
    if (literals.some((l) => l.pe.kind === 'literal' && starMatches(star, l.pe.key))) return 'conflict';
  }
  return 'both';
}

function captureOf(pe: PathElement): { capture: CaptureKind; groups: number } {
  switch (pe.kind) {
    case 'star-single':
      return { capture: 'single', groups: 1 };
    case 'star-double':
      return { capture: 'double', groups: 2 };
    case 'star-regex':
      return { capture: 'regex', groups: pe.groups };
    default:
      return { capture: 'none', groups: 0 };
  }
}

/**
 * One spec object at `level`: a function `(S, k, c, d)` setting its walked-path slot and applying
 * its children to `d`. `scope` describes the levels above; `self` this level.
 */
/**
 * A spec object to compile to a function: its `spec` at `path`, at `level` below the levels of
 * `outer`, `self` its own level (whose key it shares, what it captures), `depth` its nesting.
 */
interface SpecObject {
  readonly spec: Record<string, unknown>;
  readonly path: JsonPath;
  readonly outer: Scope;
  readonly level: number;
  readonly self: Level;
  readonly depth: number;
}

function compileComposite(prog: Program, object: SpecObject): string {
  const { spec, path, outer, level, self, depth } = object;
  const fn = prog.name('node');
  if (depth > MAX_SPEC_DEPTH) {
    prog.error('PIPE5019', path, 'key', `the spec is nested deeper than ${MAX_SPEC_DEPTH} levels`);
    prog.declare(`function ${fn}() {}`);
    return fn;
  }
  const isOwner = self.owner === level;
  const scope = outer.enter(level, self, isOwner ? { key: OWN_KEY, cap: 'c', data: 'd', hash: `S.H[${level}]` } : { data: 'd' });
  const children = parseChildren(prog, spec, path);
  const literals = children.filter((c) => c.pe.kind === 'literal');
  const specials = children.filter((c) => c.pe.kind === 'at' || c.pe.kind === 'hash' || c.pe.kind === 'dollar' || c.pe.kind === 'transpose');
  const computed = children.filter((c) => isStar(c.pe) || c.pe.kind === 'amp' || c.pe.kind === 'array').sort(computedCompare);
  const strategy = strategyOf(literals, computed);

  const body = new Lines();
  const e: Emit = { prog, out: body, ind: 1, scope, level, depth };
  for (const child of specials) emitSpecial(e, child);

  if (literals.length > 0 || computed.length > 0) {
    const kids: Children = { strategy, literals, computed };
    body.add(1, `if (d !== null && typeof d === "object") {`);
    body.add(2, `if (Array.isArray(d)) {`);
    emitList(inner(e, 2), kids);
    body.add(2, `} else {`);
    emitMap(inner(e, 2), kids);
    body.add(2, `}`);
    body.add(1, `} else if (d !== null && d !== undefined) {`);
    body.add(2, `const s = J.jstr(d);`);
    emitScalar(inner(e), kids);
    body.add(1, `}`);
  }
  // the slots of this level, now that every function that could read them has been generated
  const head = new Lines();
  const stores = [
    scope.slots.has('T', level) ? `S.T[${level}] = d;` : '',
    isOwner && scope.slots.has('K', level) ? `S.K[${level}] = ${OWN_KEY};` : '',
    isOwner && scope.slots.has('C', level) ? `S.C[${level}] = c;` : '',
    isOwner && scope.counts ? `S.H[${level}] = 0;` : '',
  ].filter((x) => x !== '');
  head.add(1, stores.join(' '));
  for (const declaration of scope.hoisted.declarations) head.add(1, declaration);
  head.addAll(body);
  prog.declare(`/** shift ${describe(path)} */\nfunction ${fn}(S, k, c, d, n) {\n${head.toString()}\n}`);
  return fn;
}

function describe(path: JsonPath): string {
  const keys = path.slice(2).map(String);
  return keys.length === 0 ? 'root' : keys.join(' › ').replace(/\*\//g, '*\\/');
}

function emitMap(e: Emit, kids: Children): void {
  const { out, ind, scope, level } = e;
  const { strategy, literals, computed } = kids;
  if (strategy === 'literals' || strategy === 'both') {
    const containers = sharedContainers(literals, scope, level);
    literals.forEach((child, i) => {
      const container = containers[i];
      // a run of leaves writing into the same container finds it once (see emitPut)
      if (container?.declaration !== undefined) out.add(ind, container.declaration);
      const key = lit(literalKey(child));
      if (plainKeyExpr(key)) {
        // JSON values are never undefined, so a defined read of a non-prototype key is an own key
        out.add(ind, `{`);
        out.add(ind + 1, `const kk = ${key}, vv = d[${key}];`);
        out.add(ind + 1, `if (vv !== undefined) {`);
        emitMatched(inner(e, 2), child, { container });
        out.add(ind + 1, `}`);
        out.add(ind, `}`);
      } else {
        out.add(ind, `if (J.has(d, ${key})) {`);
        out.add(ind + 1, `const kk = ${key}, vv = d[${key}];`);
        emitMatched(inner(e), child, { container });
        out.add(ind, `}`);
      }
    });
  }
  if (strategy === 'computed' || strategy === 'both') {
    out.add(ind, `for (const kk of Object.keys(d)) {`);
    out.add(ind + 1, `const vv = d[kk];`);
    emitComputedChain(inner(e), computed);
    out.add(ind, `}`);
  }
  if (strategy === 'conflict') {
    out.add(ind, `for (const kk of Object.keys(d)) {`);
    out.add(ind + 1, `const vv = d[kk];`);
    emitConflict(inner(e), kids);
    out.add(ind, `}`);
  }
}

/** A variable caching the container a run of leaves writes into (see sharedContainers). */
interface SharedContainer {
  readonly name: string;
  /** Set on the run's first leaf: the statement declaring the variable. */
  readonly declaration: string | undefined;
  /** Keys on the way that are only known at run time: then a key written may turn sharing off. */
  readonly guarded: boolean;
}

/**
 * For each literal child of a map, a variable caching the container its write goes into, when it
 * is one of a run of leaves (next to each other in the spec) that all walk the same way:
 * `"sku": "lines[&1].code", "qty": "lines[&1].quantity"` walk from the root to `lines[&1]` once
 * instead of once per key. Only where no write of the run can change that walk: each step before
 * the last is a map key or a list index fixed for the function, each last step a constant map
 * key, and no key written is one of the map keys on the way (a write sets a key of the container
 * only, and the container, a map, is never one of the lists on the way). Map keys on the way that
 * come from the input (`&1`, a capture) are compared with the keys written when the function runs;
 * if one is equal, every write of the run walks as usual.
 */
function sharedContainers(literals: readonly Child[], scope: Scope, level: number): (SharedContainer | undefined)[] {
  const walks = literals.map((child) => containerWalk(child, scope, level));
  const signature = (i: number): string | undefined => walks[i]?.signature;
  const out: (SharedContainer | undefined)[] = [];
  walks.forEach((walk, i) => {
    if (walk === undefined || (signature(i - 1) !== walk.signature && signature(i + 1) !== walk.signature)) {
      out.push(undefined);
      return;
    }
    const first = signature(i - 1) === walk.signature ? (out[i - 1] as SharedContainer) : undefined;
    if (first) {
      out.push({ ...first, declaration: undefined });
      return;
    }
    const name = `into${level}_${i}`;
    const written: string[] = [];
    for (let j = i; j < walks.length && signature(j) === walk.signature; j++) written.push((walks[j] as ContainerWalk).lastKey);
    const dynamic = walk.dynamicKeys.map((key) => scope.hoisted.name(key));
    const clash = dynamic.flatMap((key) => written.map((lastKey) => `${key} === ${lastKey}`));
    const comment = ' // the container the next writes share, once found';
    out.push({
      name,
      declaration: clash.length === 0 ? `let ${name};${comment}` : `let ${name} = ${clash.join(' || ')} ? null : undefined;${comment} (null: not shared, a key on the way is one written)`,
      guarded: clash.length > 0,
    });
  });
  return out;
}

interface ContainerWalk {
  /** The walk to the container as text: equal text, same container. */
  readonly signature: string;
  /** The constant key written into the container (a JS string literal). */
  readonly lastKey: string;
  /** Key expressions of map steps on the way that are not constants. */
  readonly dynamicKeys: readonly string[];
}

/** A leaf's single write, when the container it writes into may be shared (see sharedContainers). */
function containerWalk(child: Child, scope: Scope, level: number): ContainerWalk | undefined {
  if (child.composite || child.outputs.length !== 1 || child.pe.kind !== 'literal') return undefined;
  let steps: WriteStep[];
  try {
    steps = writeSteps(leafScopeOf(scope, level, child, 'undefined'), level + 1, child.outputs[0] ?? []);
  } catch (e) {
    if (e instanceof SpecError) return undefined;
    throw e;
  }
  const last = steps[steps.length - 1];
  const walk = steps.slice(0, -1);
  if (last === undefined || walk.length === 0 || last.kind !== 'M' || !last.constant || !plainKeyExpr(last.key)) return undefined;
  const fixed = walk.every((step) => step.kind !== 'X' && !step.nullable && (step.constant || isInvariant(step.key)));
  if (!fixed || walk.some((step) => step.kind === 'M' && step.constant && step.key === last.key)) return undefined;
  return {
    signature: walk.map((step) => `${step.kind}${step.key}`).join('/'),
    lastKey: last.key,
    dynamicKeys: walk.filter((step) => step.kind === 'M' && !step.constant).map((step) => step.key),
  };
}

function emitList(e: Emit, kids: Children): void {
  const { out, ind } = e;
  const { strategy, literals, computed } = kids;
  if (strategy === 'literals' || strategy === 'both') {
    for (const child of literals) {
      const key = literalKey(child);
      const index = /^[+-]?\d+$/.test(key) ? Number(key) : NaN;
      if (!(index >= 0 && index <= 2147483647)) continue;
      out.add(ind, `if (${index} < d.length) {`);
      out.add(ind + 1, `const kk = ${lit(key)}, vv = d[${index}];`);
      emitMatched(inner(e), child, { listIndex: String(index) });
      out.add(ind, `}`);
    }
  }
  if (strategy === 'computed' || strategy === 'both' || strategy === 'conflict') {
    out.add(ind, `for (let i = 0; i < d.length; i++) {`);
    // `*` over a list into a spec object: the child gets the index (`n`) and makes its key text
    // only if it uses it (OWN_KEY), instead of a String(i) per element here.
    const [only] = computed;
    const indexOnly = strategy === 'computed' && computed.length === 1 && only !== undefined && only.pe.kind === 'star-all' && only.composite;
    out.add(ind + 1, indexOnly ? `const kk = null, vv = d[i];` : `const kk = String(i), vv = d[i];`);
    if (strategy === 'conflict') emitConflict(inner(e), kids, 'i');
    else emitComputedChain(inner(e), computed, 'i');
    out.add(ind, `}`);
  }
}

function emitScalar(e: Emit, kids: Children): void {
  const { out, ind } = e;
  const { strategy, literals, computed } = kids;
  out.add(ind, `const kk = s, vv = null;`);
  if (strategy === 'conflict') {
    emitConflict(e, kids);
    return;
  }
  if (strategy === 'literals' || strategy === 'both') {
    for (const child of literals) {
      out.add(ind, `if (s === ${lit(literalKey(child))}) {`);
      emitMatched(inner(e), child, {});
      out.add(ind, `}`);
    }
  }
  if (strategy === 'computed' || strategy === 'both') emitComputedChain(e, computed);
}

/** Literal and computed keys that may match the same input key: a `switch` with the chain as default. */
function emitConflict(e: Emit, kids: Children, listIndex?: string): void {
  const { out, ind } = e;
  const at = listIndex === undefined ? {} : { listIndex };
  out.add(ind, `switch (kk) {`);
  for (const child of kids.literals) {
    out.add(ind + 1, `case ${lit(literalKey(child))}: {`);
    emitMatched(inner(e, 2), child, at);
    out.add(ind + 2, `break;`);
    out.add(ind + 1, `}`);
  }
  out.add(ind + 1, `default: {`);
  emitComputedChain(inner(e, 2), kids.computed, listIndex);
  out.add(ind + 1, `}`);
  out.add(ind, `}`);
}

function literalKey(child: Child): string {
  return child.pe.kind === 'literal' ? child.pe.key : '';
}

/**
 * `if (first computed key matches) … else if (second) …`: the first match handles the input key.
 * `listIndex`: the loop's index variable when the keys are those of a list.
 */
function emitComputedChain(e: Emit, computed: readonly Child[], listIndex?: string): void {
  const { prog, out, ind, scope, level, depth } = e;
  const [child, ...rest] = computed;
  if (child === undefined) return;
  const pe = child.pe;
  let capture: string | undefined;
  let condition: string;
  try {
    switch (pe.kind) {
      case 'star-all':
        condition = 'true';
        break;
      case 'star-single': {
        const min = pe.prefix.length + pe.suffix.length;
        const parts = [`kk.length > ${min}`];
        if (pe.prefix !== '') parts.push(`kk.startsWith(${lit(pe.prefix)})`);
        if (pe.suffix !== '') parts.push(`kk.endsWith(${lit(pe.suffix)})`);
        condition = parts.join(' && ');
        capture = `kk.slice(${pe.prefix.length}, kk.length - ${pe.suffix.length})`;
        break;
      }
      case 'star-double':
        out.add(ind, `const m${depth} = J.star2(kk, ${lit(pe.prefix)}, ${lit(pe.mid)}, ${lit(pe.suffix)});`);
        condition = `m${depth} !== null`;
        capture = `m${depth}`;
        break;
      case 'star-regex': {
        const parts = prog.name('SP');
        prog.declare(`const ${parts} = ${JSON.stringify(pe.parts)};`);
        out.add(ind, `const m${depth} = J.starN(kk, ${parts});`);
        condition = `m${depth} !== null`;
        capture = `m${depth}`;
        break;
      }
      case 'amp':
        condition = `kk === ${evaluateExpr(scope, level, pe)}`;
        break;
      case 'array':
        condition = `kk === ${arrayIndexExpr(scope, level, pe)}`;
        break;
      default:
        return;
    }
  } catch (problem) {
    if (!(problem instanceof SpecError)) throw problem;
    prog.error(problem.code, child.path, 'key', problem.message);
    emitComputedChain(e, rest, listIndex);
    return;
  }
  out.add(ind, `if (${condition}) {`);
  emitMatched(inner(e), child, { ...(capture !== undefined ? { capture } : {}), ...(listIndex !== undefined ? { listIndex } : {}) });
  if (rest.length > 0) {
    out.add(ind, `} else {`);
    emitComputedChain(inner(e), rest, listIndex);
  }
  out.add(ind, `}`);
}

/**
 * A literal or computed child matched input key `kk` with value `vv`: a spec object calls its
 * function (given the list index as its `n`), a leaf writes `vv` to its output paths.
 */
function emitMatched(e: Emit, child: Child, match: Match): void {
  const { prog, out, ind, scope, level, depth } = e;
  const { capture, listIndex, container } = match;
  const { capture: kind, groups } = captureOf(child.pe);
  const childLevel = level + 1;
  if (capture !== undefined && kind === 'single') out.add(ind, `const cc = ${capture};`);
  const capName = capture === undefined ? 'undefined' : kind === 'single' ? 'cc' : capture;
  if (child.composite) {
    let fn = compiledChildren.get(child);
    if (fn === undefined) {
      const self = { owner: childLevel, capture: kind, groups };
      fn = compileComposite(prog, { spec: child.rhs as Record<string, unknown>, path: child.path, outer: scope, level: childLevel, self, depth: depth + 1 });
      compiledChildren.set(child, fn);
    }
    out.add(ind, listIndex === undefined ? `${fn}(S, kk, ${capName}, vv);` : `${fn}(S, kk, ${capName}, vv, ${listIndex});`);
  } else {
    emitWrites({ ...e, scope: leafScopeOf(scope, level, child, capName), level: childLevel }, child, 'vv', container);
  }
  out.add(ind, scope.countMatch(level));
}

function leafScopeOf(scope: Scope, level: number, child: Child, capName: string): Scope {
  const { capture: kind, groups } = captureOf(child.pe);
  return scope.with(level + 1, { owner: level + 1, capture: kind, groups }, { key: 'kk', cap: capName, data: 'vv', hash: '0' });
}

/** `@`, `@(…)`, `$…` and `#…` children: they see the composite's own key and data and never block. */
function emitSpecial(e: Emit, child: Child): void {
  const { prog, out, ind, scope, level, depth } = e;
  const pe = child.pe;
  const childLevel = level + 1;
  const owner = scope.levels[level]?.owner ?? level;
  const alias = { owner, capture: 'none' as CaptureKind, groups: 0 };
  try {
    if (pe.kind === 'transpose') {
      const read = readExpr(scope, level, pe.transpose);
      out.add(ind, `{`);
      out.add(ind + 1, `const v = ${read};`);
      out.add(ind + 1, `if (v !== J.N) {`);
      if (child.composite) {
        const fn = compileComposite(prog, { spec: child.rhs as Record<string, unknown>, path: child.path, outer: scope, level: childLevel, self: alias, depth: depth + 1 });
        out.add(ind + 2, `${fn}(S, undefined, undefined, v);`);
        out.add(ind + 2, scope.countMatch(level));
      } else {
        emitWrites({ ...inner(e, 2), scope: scope.with(childLevel, alias, { data: 'd' }), level: childLevel }, child, 'v');
      }
      out.add(ind + 1, `}`);
      out.add(ind, `}`);
    } else if (pe.kind === 'at') {
      emitWrites({ ...e, scope: scope.with(childLevel, alias, { data: 'd' }), level: childLevel }, child, 'd');
    } else if (pe.kind === 'dollar') {
      const value = evaluateExpr(scope, level, pe);
      out.add(ind, `{`);
      out.add(ind + 1, `const v = ${value};`);
      const own = { owner: childLevel, capture: 'none' as CaptureKind, groups: 0 };
      emitWrites({ ...inner(e), scope: scope.with(childLevel, own, { key: 'v', data: 'd', hash: '0' }), level: childLevel }, child, 'v');
      out.add(ind, `}`);
    } else if (pe.kind === 'hash') {
      const own = { owner: childLevel, capture: 'none' as CaptureKind, groups: 0 };
      if (child.composite) {
        const fn = compileComposite(prog, { spec: child.rhs as Record<string, unknown>, path: child.path, outer: scope, level: childLevel, self: own, depth: depth + 1 });
        out.add(ind, `${fn}(S, ${lit(pe.value)}, undefined, d);`);
        out.add(ind, scope.countMatch(level));
      } else {
        const hashScope = scope.with(childLevel, own, { key: lit(pe.value), data: 'd', hash: '0' });
        emitWrites({ ...e, scope: hashScope, level: childLevel }, child, lit(pe.value));
      }
    }
  } catch (problem) {
    if (!(problem instanceof SpecError)) throw problem;
    prog.error(problem.code, child.path, 'key', problem.message);
  }
}

/** A leaf's writes of `data` to each of its output paths; `e.scope` and `e.level` are the leaf's. */
function emitWrites(e: Emit, child: Child, data: string, container?: SharedContainer): void {
  const rhsList = Array.isArray(child.rhs);
  child.outputs.forEach((output, i) => {
    try {
      emitPut(e, writeSteps(e.scope, e.level, output), data, container);
    } catch (problem) {
      if (!(problem instanceof SpecError)) throw problem;
      e.prog.error(problem.code, rhsList ? [...child.path, i] : child.path, 'value', problem.message);
    }
  });
}

/** A constant key expression (a JSON string literal) that is a plain key (see emit.ts). */
function plainKeyExpr(expr: string): boolean {
  return expr.startsWith('"') && plainKey(JSON.parse(expr) as string);
}

/**
 * Statements reading map key `name` of `t` into a new `let` variable `into`; the result is undefined
 * when the key is absent. A computed key is read with a plain `t[k]` (an access specific to this
 * site) and an inherited member found that way counts as absent (see J.proto).
 */
function readKey(name: string, into: string): string {
  if (plainKeyExpr(name)) return `let ${into} = t[${name}];`;
  if (name.startsWith('"')) return `let ${into} = J.has(t, ${name}) ? t[${name}] : undefined;`;
  return `let ${into} = t[${name}]; if (typeof ${into} === "function" || ${into} === J.proto) ${into} = undefined;`;
}

/** A statement setting map key `name` of `t` (`__proto__` becomes an own key, never the prototype). */
function writeKey(name: string, value: string): string {
  if (plainKeyExpr(name)) return `t[${name}] = ${value};`;
  if (name.startsWith('"')) return `J.set(t, ${name}, ${value});`;
  return `if (${name} === "__proto__") J.set(t, ${name}, ${value}); else t[${name}] = ${value};`;
}

/**
 * Inline Shiftr write (the specialised form of J.put): evaluate every key first (a null key or a
 * negative index skips the write), walk/create containers below the root, then set the last step,
 * merging into what is there through J.fm / J.fa.
 */
function emitPut(e: Emit, steps: readonly WriteStep[], data: string, container?: SharedContainer): void {
  const { out, ind, scope } = e;
  out.add(ind, `w: {`);
  const names = steps.map((step, i) => {
    if (step.kind === 'X' || step.constant) return step.key;
    let name: string;
    if (isInvariant(step.key)) name = scope.hoisted.name(step.key);
    else {
      name = `${step.kind === 'A' ? 'a' : 'k'}${i}`;
      out.add(ind + 1, `const ${name} = ${step.key};`);
    }
    if (step.kind === 'A' && (step.key.startsWith('J.index(') || step.key.startsWith('J.listIndex('))) out.add(ind + 1, `if (${name} < 0) break w;`);
    if (step.nullable) out.add(ind + 1, `if (${name} === null) break w;`);
    return name;
  });
  const [first, ...rest] = steps;
  if (first === undefined) {
    out.add(ind + 1, `J.fm(S, S.o, "root", ${data});`);
    out.add(ind, `}`);
    return;
  }
  // the container under the root key: walked (creating what is missing), or found by an earlier
  // write of the same run (`container`, see sharedContainers)
  const at = container === undefined ? ind + 1 : ind + 2;
  if (container === undefined) out.add(ind + 1, `let t = S.o.root;`);
  else {
    out.add(ind + 1, `let t = ${container.name};`);
    out.add(ind + 1, container.guarded ? `if (t === undefined || t === null) {` : `if (t === undefined) {`);
    out.add(at, `t = S.o.root;`);
  }
  out.add(at, `if (t === undefined || t === null) { t = ${first.kind === 'M' ? '{}' : 'J.own(S, [])'}; S.o.root = t; }`);
  out.add(at, `else if (${first.kind === 'M' ? '!J.isMap(t)' : '!Array.isArray(t)'}) break w;`);
  steps.forEach((step, i) => {
    const next = rest[i];
    const name = names[i] ?? '';
    if (next === undefined) return;
    const fresh = next.kind === 'M' ? '{}' : 'J.own(S, [])';
    const wrongType = next.kind === 'M' ? '!J.isMap(u)' : '!Array.isArray(u)';
    out.add(at, `{`);
    if (step.kind === 'X') {
      out.add(at + 1, `const u = ${fresh}; t.push(u); t = u;`);
    } else if (step.kind === 'A') {
      out.add(at + 1, `let u = ${name} < t.length ? t[${name}] : undefined;`);
      out.add(at + 1, `if (u === undefined || u === null) { u = ${fresh}; while (t.length < ${name}) t.push(null); t[${name}] = u; }`);
      out.add(at + 1, `else if (${wrongType}) break w;`);
      out.add(at + 1, `t = u;`);
    } else {
      out.add(at + 1, readKey(name, 'u'));
      out.add(at + 1, `if (u === undefined || u === null) { u = ${fresh}; ${writeKey(name, 'u')} }`);
      out.add(at + 1, `else if (${wrongType}) break w;`);
      out.add(at + 1, `t = u;`);
    }
    out.add(at, `}`);
  });
  if (container !== undefined) {
    out.add(at, container.guarded ? `if (${container.name} === undefined) ${container.name} = t;` : `${container.name} = t;`);
    out.add(ind + 1, `}`);
  }
  const last = steps[steps.length - 1] ?? first;
  const lastName = names[steps.length - 1] ?? '';
  if (last.kind === 'X') out.add(ind + 1, `t.push(${data});`);
  else if (last.kind === 'A') out.add(ind + 1, `J.fa(S, t, ${lastName}, ${data});`);
  else if (lastName.startsWith('"') && !plainKeyExpr(lastName)) out.add(ind + 1, `J.fm(S, t, ${lastName}, ${data});`);
  else {
    // the common case inline (a store specific to this site); merging into a list goes through J.fm
    out.add(ind + 1, readKey(lastName, 'e'));
    out.add(ind + 1, `if (e === undefined || e === null) { ${writeKey(lastName, data)} } else J.fm(S, t, ${lastName}, ${data});`);
  }
  out.add(ind, `}`);
}
