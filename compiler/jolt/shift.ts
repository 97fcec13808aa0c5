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
import { type CaptureKind, evaluateExpr, isInvariant, OWN_KEY, readExpr, Scope, writeSteps, arrayIndexExpr, type WriteStep } from './walk.js';


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
  const rootFn = compileComposite(prog, spec, path, root, 1, { owner: 1, capture: 'none', groups: 0 }, 0);
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
function compileComposite(
  prog: Program,
  spec: Record<string, unknown>,
  path: JsonPath,
  outer: Scope,
  level: number,
  self: { owner: number; capture: CaptureKind; groups: number },
  depth: number,
): string {
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
  for (const child of specials) emitSpecial(prog, body, 1, child, scope, level, depth);

  if (literals.length > 0 || computed.length > 0) {
    body.add(1, `if (d !== null && typeof d === "object") {`);
    body.add(2, `if (Array.isArray(d)) {`);
    emitList(prog, body, 3, strategy, literals, computed, scope, level, depth);
    body.add(2, `} else {`);
    emitMap(prog, body, 3, strategy, literals, computed, scope, level, depth);
    body.add(2, `}`);
    body.add(1, `} else if (d !== null && d !== undefined) {`);
    body.add(2, `const s = J.jstr(d);`);
    emitScalar(prog, body, 2, strategy, literals, computed, scope, level, depth);
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

function emitMap(prog: Program, out: Lines, ind: number, strategy: Strategy, literals: Child[], computed: Child[], scope: Scope, level: number, depth: number): void {
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
        emitMatched(prog, out, ind + 2, child, scope, level, depth, undefined, undefined, container);
        out.add(ind + 1, `}`);
        out.add(ind, `}`);
      } else {
        out.add(ind, `if (J.has(d, ${key})) {`);
        out.add(ind + 1, `const kk = ${key}, vv = d[${key}];`);
        emitMatched(prog, out, ind + 1, child, scope, level, depth, undefined, undefined, container);
        out.add(ind, `}`);
      }
    });
  }
  if (strategy === 'computed' || strategy === 'both') {
    out.add(ind, `for (const kk of Object.keys(d)) {`);
    out.add(ind + 1, `const vv = d[kk];`);
    emitComputedChain(prog, out, ind + 1, computed, scope, level, depth);
    out.add(ind, `}`);
  }
  if (strategy === 'conflict') {
    out.add(ind, `for (const kk of Object.keys(d)) {`);
    out.add(ind + 1, `const vv = d[kk];`);
    emitConflict(prog, out, ind + 1, literals, computed, scope, level, depth);
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

function emitList(prog: Program, out: Lines, ind: number, strategy: Strategy, literals: Child[], computed: Child[], scope: Scope, level: number, depth: number): void {
  if (strategy === 'literals' || strategy === 'both') {
    for (const child of literals) {
      const key = literalKey(child);
      const index = /^[+-]?\d+$/.test(key) ? Number(key) : NaN;
      if (!(index >= 0 && index <= 2147483647)) continue;
      out.add(ind, `if (${index} < d.length) {`);
      out.add(ind + 1, `const kk = ${lit(key)}, vv = d[${index}];`);
      emitMatched(prog, out, ind + 1, child, scope, level, depth, undefined, String(index));
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
    if (strategy === 'conflict') emitConflict(prog, out, ind + 1, literals, computed, scope, level, depth, 'i');
    else emitComputedChain(prog, out, ind + 1, computed, scope, level, depth, 'i');
    out.add(ind, `}`);
  }
}

function emitScalar(prog: Program, out: Lines, ind: number, strategy: Strategy, literals: Child[], computed: Child[], scope: Scope, level: number, depth: number): void {
  out.add(ind, `const kk = s, vv = null;`);
  if (strategy === 'conflict') {
    emitConflict(prog, out, ind, literals, computed, scope, level, depth);
    return;
  }
  if (strategy === 'literals' || strategy === 'both') {
    for (const child of literals) {
      out.add(ind, `if (s === ${lit(literalKey(child))}) {`);
      emitMatched(prog, out, ind + 1, child, scope, level, depth, undefined);
      out.add(ind, `}`);
    }
  }
  if (strategy === 'computed' || strategy === 'both') emitComputedChain(prog, out, ind, computed, scope, level, depth);
}

function emitConflict(
  prog: Program, out: Lines, ind: number, literals: Child[], computed: Child[], scope: Scope, level: number, depth: number, listIndex?: string,
): void {
  out.add(ind, `switch (kk) {`);
  for (const child of literals) {
    out.add(ind + 1, `case ${lit(literalKey(child))}: {`);
    emitMatched(prog, out, ind + 2, child, scope, level, depth, undefined, listIndex);
    out.add(ind + 2, `break;`);
    out.add(ind + 1, `}`);
  }
  out.add(ind + 1, `default: {`);
  emitComputedChain(prog, out, ind + 2, computed, scope, level, depth, listIndex);
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
function emitComputedChain(
  prog: Program, out: Lines, ind: number, computed: readonly Child[], scope: Scope, level: number, depth: number, listIndex?: string,
): void {
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
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    prog.error(e.code, child.path, 'key', e.message);
    emitComputedChain(prog, out, ind, rest, scope, level, depth, listIndex);
    return;
  }
  out.add(ind, `if (${condition}) {`);
  emitMatched(prog, out, ind + 1, child, scope, level, depth, capture, listIndex);
  if (rest.length > 0) {
    out.add(ind, `} else {`);
    emitComputedChain(prog, out, ind + 1, rest, scope, level, depth, listIndex);
  }
  out.add(ind, `}`);
}

/**
 * A literal or computed child matched input key `kk` with value `vv`. `listIndex`: the index
 * (variable or literal) when `kk` is a list index, handed to a child function as its `n`.
 * `container`: see emitPut.
 */
function emitMatched(
  prog: Program, out: Lines, ind: number, child: Child, scope: Scope, level: number, depth: number, capture: string | undefined,
  listIndex?: string, container?: SharedContainer,
): void {
  const { capture: kind, groups } = captureOf(child.pe);
  const childLevel = level + 1;
  if (capture !== undefined && kind === 'single') out.add(ind, `const cc = ${capture};`);
  const capName = capture === undefined ? 'undefined' : kind === 'single' ? 'cc' : capture;
  if (child.composite) {
    let fn = compiledChildren.get(child);
    if (fn === undefined) {
      fn = compileComposite(prog, child.rhs as Record<string, unknown>, child.path, scope, childLevel, { owner: childLevel, capture: kind, groups }, depth + 1);
      compiledChildren.set(child, fn);
    }
    out.add(ind, listIndex === undefined ? `${fn}(S, kk, ${capName}, vv);` : `${fn}(S, kk, ${capName}, vv, ${listIndex});`);
  } else {
    emitWrites(prog, out, ind, child, leafScopeOf(scope, level, child, capName), childLevel, 'vv', container);
  }
  out.add(ind, scope.countMatch(level));
}

function leafScopeOf(scope: Scope, level: number, child: Child, capName: string): Scope {
  const { capture: kind, groups } = captureOf(child.pe);
  return scope.with(level + 1, { owner: level + 1, capture: kind, groups }, { key: 'kk', cap: capName, data: 'vv', hash: '0' });
}

/** `@`, `@(…)`, `$…` and `#…` children: they see the composite's own key and data and never block. */
function emitSpecial(prog: Program, out: Lines, ind: number, child: Child, scope: Scope, level: number, depth: number): void {
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
        const fn = compileComposite(prog, child.rhs as Record<string, unknown>, child.path, scope, childLevel, alias, depth + 1);
        out.add(ind + 2, `${fn}(S, undefined, undefined, v);`);
        out.add(ind + 2, scope.countMatch(level));
      } else {
        emitWrites(prog, out, ind + 2, child, scope.with(childLevel, alias, { data: 'd' }), childLevel, 'v');
      }
      out.add(ind + 1, `}`);
      out.add(ind, `}`);
    } else if (pe.kind === 'at') {
      emitWrites(prog, out, ind, child, scope.with(childLevel, alias, { data: 'd' }), childLevel, 'd');
    } else if (pe.kind === 'dollar') {
      const value = evaluateExpr(scope, level, pe);
      out.add(ind, `{`);
      out.add(ind + 1, `const v = ${value};`);
      const own = { owner: childLevel, capture: 'none' as CaptureKind, groups: 0 };
      emitWrites(prog, out, ind + 1, child, scope.with(childLevel, own, { key: 'v', data: 'd', hash: '0' }), childLevel, 'v');
      out.add(ind, `}`);
    } else if (pe.kind === 'hash') {
      const own = { owner: childLevel, capture: 'none' as CaptureKind, groups: 0 };
      if (child.composite) {
        const fn = compileComposite(prog, child.rhs as Record<string, unknown>, child.path, scope, childLevel, own, depth + 1);
        out.add(ind, `${fn}(S, ${lit(pe.value)}, undefined, d);`);
        out.add(ind, scope.countMatch(level));
      } else {
        emitWrites(prog, out, ind, child, scope.with(childLevel, own, { key: lit(pe.value), data: 'd', hash: '0' }), childLevel, lit(pe.value));
      }
    }
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    prog.error(e.code, child.path, 'key', e.message);
  }
}

function emitWrites(prog: Program, out: Lines, ind: number, child: Child, scope: Scope, level: number, data: string, container?: SharedContainer): void {
  const rhsList = Array.isArray(child.rhs);
  child.outputs.forEach((output, i) => {
    try {
      emitPut(out, ind, scope, writeSteps(scope, level, output), data, container);
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      prog.error(e.code, rhsList ? [...child.path, i] : child.path, 'value', e.message);
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
function emitPut(out: Lines, ind: number, scope: Scope, steps: readonly WriteStep[], data: string, container?: SharedContainer): void {
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
