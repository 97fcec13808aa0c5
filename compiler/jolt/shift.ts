/**
 * Shiftr (`operation: "shift"`) to JavaScript. Each spec object becomes one generated function that
 * walks the matching part of the input: literal keys become property reads, wildcards become loops
 * with prefix/suffix tests (or a hoisted RegExp), references become expressions over the walked-path
 * slots. Precedence follows Jolt: literal keys beat computed ones (`&` keys, then the most specific
 * `*` patterns), `@`/`$`/`#` keys always run. Values are moved into the output, never copied.
 */
import { type JsonPath, Lines, lit, MAX_SPEC_DEPTH, Program, isPlainObject, plainKey, splitOr } from './emit.js';
import {
  canonicalOf,
  compareComputedKeys,
  isStar,
  parseKey,
  parseOutputPath,
  type PathElement,
  SpecError,
  starMatches,
} from './keys.js';
import {
  type CaptureKind,
  evaluateExpr,
  type Level,
  isInvariant,
  OWN_KEY,
  readExpr,
  Scope,
  writeSteps,
  arrayIndexExpr,
  type WriteStep,
} from './walk.js';
import * as E from './errors.js';
import {
  ContainerKinds,
  type DirectWrite,
  type EmittedWrite,
  freshContainer,
  freshKey,
  type Runs,
  type SpecOutput,
  shiftOutputs,
  type Writer,
} from './container-kinds.js';

/** One key of a spec object (an `a|b` key gives one per alternative). */
export interface Child {
  readonly pe: PathElement;
  readonly rhs: unknown;
  readonly path: JsonPath;
  readonly composite: boolean;
  /** Output paths of a leaf (empty for a null right-hand side). */
  readonly outputs: readonly (readonly PathElement[])[];
}

/** Each child object is compiled once even though the map, list and scalar branches all call it. */
const compiledChildren = new WeakMap<Child, string>();

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
  /** Which containers the writes walk through are proven to be of the right kind. */
  readonly kinds: ContainerKinds;
  /** The variables keeping, for one run of the whole shift, containers at constant paths. */
  readonly runContainers: RunContainers;
  /** The function being generated, for proving the places it writes fresh. */
  readonly writer: Writer;
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

/** How a shift is compiled: `wideOver`, see RunContainers. */
export interface ShiftOptions {
  readonly wideOver: number;
}

/**
 * Loops over an input list or map longer than this mark the run wide (see J.dict): V8 turns an
 * object that gets more than about 16 keys by computed names into a dictionary anyway.
 */
export const WIDE_INPUT = 32;

/** Compiles a shift spec; returns the name of the generated step function `(input) => output`. */
export function compileShift(
  prog: Program,
  spec: unknown,
  path: JsonPath,
  options: ShiftOptions = { wideOver: WIDE_INPUT },
): string {
  const fn = prog.name('shift');
  if (!isPlainObject(spec)) {
    prog.error(E.specNotAnObject('shift'), path, 'value');
    return fn;
  }
  // match counts cost a store per matched key; they are kept only when some `[#n]` may read them
  const counts = /\[\s*#/.test(JSON.stringify(spec));
  const root = new Scope([{ owner: 0, capture: 'none', groups: 0 }], new Map(), prog, counts);
  const runContainers = new RunContainers(prog, writesDataKeys(shiftOutputs(spec)) ? options.wideOver : undefined);
  const rootFn = compileComposite(prog, {
    spec,
    path,
    outer: root,
    level: 1,
    self: { owner: 1, capture: 'none', groups: 0 },
    depth: 0,
    kinds: new ContainerKinds(shiftOutputs(spec)),
    runContainers,
    runs: 'once',
  });
  const kept = runContainers.names;
  const walk = `${rootFn}(state, "root", undefined, input);`;
  prog.declare(
    [
      `/** shift: walks the input along the spec and moves matched values into a new output. */`,
      ...(kept.length === 0 ? [] : [`let ${kept.join(', ')}; // containers at constant paths, found once per run`]),
      `function ${fn}(input) {`,
      `  const state = J.shiftState(input);`,
      ...(kept.length === 0
        ? [`  ${walk}`]
        : [
            `  ${kept.join(' = ')} = undefined; // (set if this run started inside another, see RunContainers)`,
            `  try {`,
            `    ${walk}`,
            `  } finally {`,
            `    ${kept.join(' = ')} = undefined; // the next run starts without them (and this output is not kept alive)`,
            `  }`,
          ]),
      `  return J.shiftResult(state);`,
      `}`,
    ].join('\n'),
  );
  return fn;
}

/**
 * Variables of the generated code (outside every function of one shift) keeping, for one run of
 * the shift, the containers that writes with all keys before the last constant walk to (see
 * keptContainer; one per distinct walk, e.g. `countsByLabel` of "countsByLabel.@(1,label)"):
 * every function of the spec walking that way in a run finds the same container, so it is looked
 * up once per run instead of once per call of each function. The shift function empties them when
 * a run starts and when it ends: a run started inside another (only a getter of an input object
 * could start one) finds its own containers, and the outer run then looks for its own again. So
 * these containers are never made without looking whether they are there (freshContainer).
 */
class RunContainers {
  private readonly byWalk = new Map<string, string>();

  /**
   * `wideOver`, set when some output path has a key taken from the data (`&`, `@(…)`), so that a
   * run may fill a map with many keys: loops over an input longer than this mark the run wide, and
   * such maps then start as dictionaries (J.dict).
   */
  constructor(
    private readonly prog: Program,
    readonly wideOver: number | undefined,
  ) {}

  /** The variable keeping the container `walk` (keys constant, see walkOf) reaches. */
  name(walk: string): string {
    let name = this.byWalk.get(walk);
    if (name === undefined) {
      name = this.prog.name('kept');
      this.byWalk.set(walk, name);
    }
    return name;
  }

  get names(): string[] {
    return [...this.byWalk.values()];
  }
}

export function parseChildren(prog: Program, spec: Record<string, unknown>, path: JsonPath): Child[] {
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
          prog.error(e.problem, childPath, 'key');
          continue;
        }
        throw e;
      }
      const canonical = canonicalOf(pe);
      if (seen.has(canonical)) {
        prog.error(E.sameKeyTwice(keyText, canonical), childPath, 'key');
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
      prog.error(E.leafKeyWithChildren(keyText), path, 'key');
      return undefined;
    }
    if (Object.keys(rhs).length === 0) {
      prog.error(E.emptyObjectValue(keyText), path, 'value');
      return undefined;
    }
    return { pe, rhs, path, composite: true, outputs: [] };
  }
  const texts = rhs === null ? [] : typeof rhs === 'string' ? [rhs] : Array.isArray(rhs) ? rhs : undefined;
  if (texts === undefined) {
    prog.error(E.badShiftValue(keyText), path, 'value');
    return undefined;
  }
  const outputs: PathElement[][] = [];
  texts.forEach((text, i) => {
    const where = Array.isArray(rhs) ? [...path, i] : path;
    if (typeof text !== 'string') {
      prog.error(E.outputPathsNotStrings(keyText), where, 'value');
      return;
    }
    try {
      outputs.push(parseOutputPath(text));
    } catch (e) {
      if (e instanceof SpecError) prog.error(e.problem, where, 'value');
      else throw e;
    }
  });
  return { pe, rhs, path, composite: false, outputs };
}

function computedCompare(a: Child, b: Child): number {
  return compareComputedKeys(a.pe, b.pe);
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
  readonly kinds: ContainerKinds;
  readonly runContainers: RunContainers;
  readonly runs: Runs;
}

function compileComposite(prog: Program, object: SpecObject): string {
  const { spec, path, outer, level, self, depth, kinds, runContainers, runs } = object;
  const fn = prog.name('node');
  if (depth > MAX_SPEC_DEPTH) {
    prog.error(E.nestedTooDeep(MAX_SPEC_DEPTH), path, 'key');
    prog.declare(`function ${fn}() {}`);
    return fn;
  }
  const isOwner = self.owner === level;
  const scope = outer.enter(
    level,
    self,
    isOwner ? { key: OWN_KEY, cap: 'captures', data: 'data', hash: `state.H[${level}]` } : { data: 'data' },
  );
  const children = parseChildren(prog, spec, path);
  const literals = children.filter((c) => c.pe.kind === 'literal');
  const specials = children.filter(
    (c) => c.pe.kind === 'at' || c.pe.kind === 'hash' || c.pe.kind === 'dollar' || c.pe.kind === 'transpose',
  );
  const computed = children
    .filter((c) => isStar(c.pe) || c.pe.kind === 'amp' || c.pe.kind === 'array')
    .sort(computedCompare);
  const strategy = strategyOf(literals, computed);

  const body = new Lines();
  const ownKeys = new Set(self.capture === 'single' ? [OWN_KEY, 'captures'] : [OWN_KEY]);
  const first: Emit = {
    prog,
    out: body,
    ind: 1,
    scope,
    level,
    depth,
    kinds,
    runContainers,
    writer: { owner: spec, runs, ownKeys, direct: [] },
  };
  const e: Emit = { ...first, writer: { ...first.writer, direct: directWrites(first, children) } };
  for (const child of specials) emitSpecial(e, child);

  if (literals.length > 0 || computed.length > 0) {
    const kids: Children = { strategy, literals, computed };
    body.add(1, `if (data !== null && typeof data === "object") {`);
    const list = new Lines();
    emitList({ ...e, out: list, ind: 3 }, kids);
    // no key of the spec object can match a list index: lists are left alone
    body.add(2, list.empty ? `if (!Array.isArray(data)) {` : `if (Array.isArray(data)) {`);
    if (!list.empty) {
      body.addAll(list);
      body.add(2, `} else {`);
    }
    emitMap(inner(e, 2), kids);
    body.add(2, `}`);
    body.add(1, `} else if (data !== null && data !== undefined) {`);
    body.add(2, `const text = J.jstr(data);`);
    emitScalar(inner(e), kids);
    body.add(1, `}`);
  }
  // the slots of this level, now that every function that could read them has been generated
  const head = new Lines();
  const stores = [
    scope.slots.has('T', level) ? `state.T[${level}] = data;` : '',
    isOwner && scope.slots.has('K', level) ? `state.K[${level}] = ${OWN_KEY};` : '',
    isOwner && scope.slots.has('C', level) ? `state.C[${level}] = captures;` : '',
    isOwner && scope.counts ? `state.H[${level}] = 0;` : '',
  ].filter((x) => x !== '');
  head.add(1, stores.join(' '));
  for (const declaration of scope.hoisted.declarations) head.add(1, declaration);
  head.addAll(body);
  prog.declare(
    `/** shift ${describe(path)} */\nfunction ${fn}(state, key, captures, data, index) {\n${head.toString()}\n}`,
  );
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
    const containers = sharedContainers(literals, e);
    literals.forEach((child, i) => {
      const container = containers[i];
      // a run of leaves writing into the same container finds it once (see emitPut)
      if (container?.declaration !== undefined) out.add(ind, container.declaration);
      const key = lit(literalKey(child));
      if (plainKeyExpr(key)) {
        // JSON values are never undefined, so a defined read of a non-prototype key is an own key
        out.add(ind, `{`);
        out.add(ind + 1, `const childKey = ${key}, childValue = data[${key}];`);
        out.add(ind + 1, `if (childValue !== undefined) {`);
        emitMatched(inner(e, 2), child, { container });
        out.add(ind + 1, `}`);
        out.add(ind, `}`);
      } else {
        out.add(ind, `if (J.has(data, ${key})) {`);
        out.add(ind + 1, `const childKey = ${key}, childValue = data[${key}];`);
        emitMatched(inner(e), child, { container });
        out.add(ind, `}`);
      }
    });
  }
  if (strategy === 'computed' || strategy === 'both' || strategy === 'conflict') {
    const wideOver = e.runContainers.wideOver;
    if (wideOver !== undefined) {
      out.add(ind, `const keys = Object.keys(data);`);
      out.add(ind, markWide('keys.length', wideOver));
    }
    out.add(ind, `for (const childKey of ${wideOver !== undefined ? 'keys' : 'Object.keys(data)'}) {`);
    out.add(ind + 1, `const childValue = data[childKey];`);
    if (strategy === 'conflict') emitConflict(inner(e), kids);
    else emitComputedChain(inner(e), computed);
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
function sharedContainers(literals: readonly Child[], e: Emit): (SharedContainer | undefined)[] {
  const { scope, level } = e;
  const walks = literals.map((child) => containerWalk(child, e));
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
    for (let j = i; j < walks.length && signature(j) === walk.signature; j++)
      written.push((walks[j] as ContainerWalk).lastKey);
    const dynamic = walk.dynamicKeys.map((key) => scope.hoisted.name(key));
    const clash = dynamic.flatMap((key) => written.map((lastKey) => `${key} === ${lastKey}`));
    const comment = ' // the container the next writes share, once found';
    out.push({
      name,
      declaration:
        clash.length === 0
          ? `let ${name};${comment}`
          : `let ${name} = ${clash.join(' || ')} ? null : undefined;${comment} (null: not shared, a key on the way is one written)`,
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
function containerWalk(child: Child, e: Emit): ContainerWalk | undefined {
  const { scope, level } = e;
  const output = child.outputs[0];
  if (child.composite || child.outputs.length !== 1 || child.pe.kind !== 'literal' || output === undefined)
    return undefined;
  let steps: WriteStep[];
  try {
    steps = writeSteps(leafScopeOf(scope, level, child, 'undefined'), level + 1, output);
  } catch (e) {
    if (e instanceof SpecError) return undefined;
    throw e;
  }
  if (keptContainer(steps, e.kinds.sureSteps(output))) return undefined; // the function keeps it
  const last = steps[steps.length - 1];
  const walk = steps.slice(0, -1);
  if (last === undefined || walk.length === 0 || last.kind !== 'M' || !last.constant || !plainKeyExpr(last.key))
    return undefined;
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
      out.add(ind, `if (${index} < data.length) {`);
      out.add(ind + 1, `const childKey = ${lit(key)}, childValue = data[${index}];`);
      emitMatched(inner(e), child, { listIndex: String(index) });
      out.add(ind, `}`);
    }
  }
  if (strategy === 'computed' || strategy === 'both' || strategy === 'conflict') {
    const wideOver = e.runContainers.wideOver;
    if (wideOver !== undefined) out.add(ind, markWide('data.length', wideOver));
    out.add(ind, `for (let i = 0; i < data.length; i++) {`);
    // `*` over a list into a spec object: the child gets the index (`n`) and makes its key text
    // only if it uses it (OWN_KEY), instead of a String(i) per element here.
    const [only] = computed;
    const indexOnly =
      strategy === 'computed' &&
      computed.length === 1 &&
      only !== undefined &&
      only.pe.kind === 'star-all' &&
      only.composite;
    out.add(
      ind + 1,
      indexOnly ? `const childKey = null, childValue = data[i];` : `const childKey = String(i), childValue = data[i];`,
    );
    if (strategy === 'conflict') emitConflict(inner(e), kids, 'i');
    else emitComputedChain(inner(e), computed, 'i');
    out.add(ind, `}`);
  }
}

function emitScalar(e: Emit, kids: Children): void {
  const { out, ind } = e;
  const { strategy, literals, computed } = kids;
  out.add(ind, `const childKey = text, childValue = null;`);
  if (strategy === 'conflict') {
    emitConflict(e, kids);
    return;
  }
  if (strategy === 'literals' || strategy === 'both') {
    for (const child of literals) {
      out.add(ind, `if (text === ${lit(literalKey(child))}) {`);
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
  out.add(ind, `switch (childKey) {`);
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
        const parts = [`childKey.length > ${min}`];
        if (pe.prefix !== '') parts.push(`childKey.startsWith(${lit(pe.prefix)})`);
        if (pe.suffix !== '') parts.push(`childKey.endsWith(${lit(pe.suffix)})`);
        condition = parts.join(' && ');
        capture = `childKey.slice(${pe.prefix.length}, childKey.length - ${pe.suffix.length})`;
        break;
      }
      case 'star-double':
        out.add(ind, `const match${depth} = J.star2(childKey, ${lit(pe.prefix)}, ${lit(pe.mid)}, ${lit(pe.suffix)});`);
        condition = `match${depth} !== null`;
        capture = `match${depth}`;
        break;
      case 'star-regex': {
        const parts = prog.name('SP');
        prog.declare(`const ${parts} = ${JSON.stringify(pe.parts)};`);
        out.add(ind, `const match${depth} = J.starN(childKey, ${parts});`);
        condition = `match${depth} !== null`;
        capture = `match${depth}`;
        break;
      }
      case 'amp':
        condition = `childKey === ${evaluateExpr(scope, level, pe)}`;
        break;
      case 'array':
        condition = `childKey === ${arrayIndexExpr(scope, level, pe)}`;
        break;
      default:
        return;
    }
  } catch (problem) {
    if (!(problem instanceof SpecError)) throw problem;
    prog.error(problem.problem, child.path, 'key');
    emitComputedChain(e, rest, listIndex);
    return;
  }
  out.add(ind, `if (${condition}) {`);
  emitMatched(inner(e), child, {
    ...(capture !== undefined ? { capture } : {}),
    ...(listIndex !== undefined ? { listIndex } : {}),
  });
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
  out.add(ind, prog.specLine(child.path, child.rhs));
  if (capture !== undefined && kind === 'single') out.add(ind, `const capture = ${capture};`);
  const capName = capture === undefined ? 'undefined' : kind === 'single' ? 'capture' : capture;
  if (child.composite) {
    let fn = compiledChildren.get(child);
    if (fn === undefined) {
      const self = { owner: childLevel, capture: kind, groups };
      fn = compileComposite(prog, {
        spec: child.rhs as Record<string, unknown>,
        path: child.path,
        outer: scope,
        level: childLevel,
        self,
        depth: depth + 1,
        kinds: e.kinds,
        runContainers: e.runContainers,
        // a key of a function that runs once matches one key of its data (a computed one, each of many once)
        runs: e.writer.runs !== 'once' ? 'many' : child.pe.kind === 'literal' ? 'once' : 'perKey',
      });
      compiledChildren.set(child, fn);
    }
    out.add(
      ind,
      listIndex === undefined
        ? `${fn}(state, childKey, ${capName}, childValue);`
        : `${fn}(state, childKey, ${capName}, childValue, ${listIndex});`,
    );
  } else {
    emitWrites(
      { ...e, scope: leafScopeOf(scope, level, child, capName), level: childLevel },
      child,
      'childValue',
      container,
    );
  }
  out.add(ind, scope.countMatch(level));
}

/** A key matched by comparing with the input keys (a wildcard, `&…` or `[…]`): a leaf there runs once per key. */
function isComputed(pe: PathElement): boolean {
  return isStar(pe) || pe.kind === 'amp' || pe.kind === 'array';
}

/** The scope the writes of a leaf or special child of the spec object of `e` are evaluated in. */
function writeScopeOf(e: Emit, child: Child): Scope {
  const { scope, level, depth } = e;
  const pe = child.pe;
  const childLevel = level + 1;
  const alias = { owner: scope.levels[level]?.owner ?? level, capture: 'none' as CaptureKind, groups: 0 };
  const own = { owner: childLevel, capture: 'none' as CaptureKind, groups: 0 };
  switch (pe.kind) {
    case 'at':
    case 'transpose':
      return scope.with(childLevel, alias, { data: 'data' });
    case 'dollar':
      return scope.with(childLevel, own, { key: 'found', data: 'data', hash: '0' });
    case 'hash':
      return scope.with(childLevel, own, { key: lit(pe.value), data: 'data', hash: '0' });
    default: {
      const kind = captureOf(pe).capture;
      const capName = kind === 'single' ? 'capture' : kind === 'none' ? 'undefined' : `match${depth}`;
      return leafScopeOf(scope, level, child, capName);
    }
  }
}

/** The writes of the own keys of the spec object of `e` (leaves, `@`, `$`, `#`), as emitWrites evaluates them. */
function directWrites(e: Emit, children: readonly Child[]): DirectWrite[] {
  return children
    .filter((child) => !child.composite)
    .flatMap((child) => {
      const scope = writeScopeOf(e, child);
      return child.outputs.map((path): DirectWrite => {
        try {
          const steps = writeSteps(scope, e.level + 1, path);
          return { path, walk: keptContainer(steps, e.kinds.sureSteps(path)) ? walkOf(steps) : undefined };
        } catch (problem) {
          if (problem instanceof SpecError) return { path, walk: undefined };
          throw problem;
        }
      });
    });
}

function leafScopeOf(scope: Scope, level: number, child: Child, capName: string): Scope {
  const { capture: kind, groups } = captureOf(child.pe);
  return scope.with(
    level + 1,
    { owner: level + 1, capture: kind, groups },
    { key: 'childKey', cap: capName, data: 'childValue', hash: '0' },
  );
}

/** `@`, `@(…)`, `$…` and `#…` children: they see the composite's own key and data and never block. */
function emitSpecial(e: Emit, child: Child): void {
  const { prog, out, ind, scope, level, depth } = e;
  const pe = child.pe;
  const childLevel = level + 1;
  const owner = scope.levels[level]?.owner ?? level;
  const alias = { owner, capture: 'none' as CaptureKind, groups: 0 };
  out.add(ind, prog.specLine(child.path, child.rhs));
  try {
    if (pe.kind === 'transpose') {
      const read = readExpr(scope, level, pe.transpose);
      out.add(ind, `{`);
      out.add(ind + 1, `const found = ${read};`);
      out.add(ind + 1, `if (found !== J.N) {`);
      if (child.composite) {
        const fn = compileComposite(prog, {
          spec: child.rhs as Record<string, unknown>,
          path: child.path,
          outer: scope,
          level: childLevel,
          self: alias,
          depth: depth + 1,
          kinds: e.kinds,
          runContainers: e.runContainers,
          runs: e.writer.runs === 'once' ? 'once' : 'many',
        });
        out.add(ind + 2, `${fn}(state, undefined, undefined, found);`);
        out.add(ind + 2, scope.countMatch(level));
      } else {
        emitWrites({ ...inner(e, 2), scope: writeScopeOf(e, child), level: childLevel }, child, 'found');
      }
      out.add(ind + 1, `}`);
      out.add(ind, `}`);
    } else if (pe.kind === 'at') {
      emitWrites({ ...e, scope: writeScopeOf(e, child), level: childLevel }, child, 'data');
    } else if (pe.kind === 'dollar') {
      const value = evaluateExpr(scope, level, pe);
      out.add(ind, `{`);
      // the function's own key is often a key of its writes too: then it is worked out once
      out.add(ind + 1, `const found = ${value === OWN_KEY ? scope.hoisted.name(value) : value};`);
      emitWrites({ ...inner(e), scope: writeScopeOf(e, child), level: childLevel }, child, 'found');
      out.add(ind, `}`);
    } else if (pe.kind === 'hash') {
      const own = { owner: childLevel, capture: 'none' as CaptureKind, groups: 0 };
      if (child.composite) {
        const fn = compileComposite(prog, {
          spec: child.rhs as Record<string, unknown>,
          path: child.path,
          outer: scope,
          level: childLevel,
          self: own,
          depth: depth + 1,
          kinds: e.kinds,
          runContainers: e.runContainers,
          runs: e.writer.runs === 'once' ? 'once' : 'many',
        });
        out.add(ind, `${fn}(state, ${lit(pe.value)}, undefined, data);`);
        out.add(ind, scope.countMatch(level));
      } else {
        emitWrites({ ...e, scope: writeScopeOf(e, child), level: childLevel }, child, lit(pe.value));
      }
    }
  } catch (problem) {
    if (!(problem instanceof SpecError)) throw problem;
    prog.error(problem.problem, child.path, 'key');
  }
}

/** A leaf's writes of `data` to each of its output paths; `e.scope` and `e.level` are the leaf's. */
function emitWrites(e: Emit, child: Child, data: string, container?: SharedContainer): void {
  const rhsList = Array.isArray(child.rhs);
  const leafKeys = isComputed(child.pe)
    ? new Set(child.pe.kind === 'star-single' ? ['childKey', 'capture'] : ['childKey'])
    : undefined;
  child.outputs.forEach((output, i) => {
    try {
      const steps = writeSteps(e.scope, e.level, output);
      const sure = e.kinds.sureSteps(output);
      const walk = keptContainer(steps, sure) ? walkOf(steps) : undefined;
      emitPut(e, { path: output, keys: steps, walk, leafKeys }, steps, data, container);
    } catch (problem) {
      if (!(problem instanceof SpecError)) throw problem;
      e.prog.error(problem.problem, rhsList ? [...child.path, i] : child.path, 'value');
    }
  });
}

/** A constant key expression (a JSON string literal) that is a plain key (see emit.ts). */
function plainKeyExpr(expr: string): boolean {
  return expr.startsWith('"') && plainKey(JSON.parse(expr) as string);
}

/**
 * Statements reading map key `name` of `t` into a new `let` variable `into`; the result is undefined
 * when the key is absent. A computed key on the way to the last step is read with a plain `t[k]`
 * (an access specific to this site; the container is usually there) and an inherited member found
 * that way counts as absent (see J.proto). The last step's key is usually not there yet: it is
 * looked up among the own keys alone (`Object.hasOwn`), since on the large dictionaries that
 * computed keys make a plain `t[k]` that misses also searches Object.prototype.
 */
function readKey(name: string, into: string, last = false): string {
  if (plainKeyExpr(name)) return `let ${into} = target[${name}];`;
  if (name.startsWith('"')) return `let ${into} = J.has(target, ${name}) ? target[${name}] : undefined;`;
  if (last) return `let ${into} = Object.hasOwn(target, ${name}) ? target[${name}] : undefined;`;
  const inherited = `typeof ${into} === "function" || ${into} === J.proto`;
  return `let ${into} = target[${name}]; if (${inherited}) ${into} = undefined;`;
}

/**
 * Whether a write may find its container in a variable of the function (Hoisted.container): when
 * every container on its way is proven (ContainerKinds), none is ever replaced, and the keys to
 * it are the same throughout the function (constants or hoisted keys, no appended elements), every
 * write of the function walking the same way finds the same container.
 */
function keptContainer(steps: readonly WriteStep[], sure: number): boolean {
  return (
    steps.length >= 2 &&
    sure === steps.length &&
    steps.slice(0, -1).every((step) => step.kind !== 'X' && (step.constant || isInvariant(step.key)))
  );
}

/** The walk to a write's container as text: equal text, same container (for a kept one, see keptContainer). */
function walkOf(steps: readonly WriteStep[]): string {
  return steps
    .slice(0, -1)
    .map((step) => `${step.kind}${step.key}`)
    .join('/');
}

/**
 * The variable keeping the container of `steps` (whose keys are `names`): one for the whole run of
 * the shift when every key on the way is a constant (see RunContainers), else one of the function.
 */
function keptContainerOf(e: Emit, steps: readonly WriteStep[], names: readonly string[]): SharedContainer {
  const walk = steps.slice(0, -1).map((step, i) => `${step.kind}${names[i] ?? ''}`);
  const name = keptForRun(steps) ? e.runContainers.name(walk.join('/')) : e.scope.hoisted.container(walk.join('/'));
  return { name, declaration: undefined, guarded: false };
}

/** Whether the run keeps the container of a kept walk (see keptContainer): every key on the way is a constant. */
function keptForRun(steps: readonly WriteStep[]): boolean {
  return steps.slice(0, -1).every((step) => step.constant);
}

/**
 * How many steps from the root the walk of a write goes through containers that a variable of the
 * shift run keeps (RunContainers): the longest start of the walk whose keys are all constants and
 * whose containers are all proven (ContainerKinds), so that once found in a run each stays the one
 * there. `ratings.&(1,1).score` finds `ratings` once per run, then walks on by the captured key.
 * 0 when no step qualifies, and when the whole walk does (then the write's container is kept).
 */
function runPrefix(steps: readonly WriteStep[], sure: number): number {
  const walk = steps.length - 1;
  let prefix = 0;
  for (; prefix < walk; prefix++) {
    const step = steps[prefix];
    // after this step the walk is in the container at depth prefix + 1, proven when sure reaches past it
    if (step === undefined || !step.constant || step.kind === 'X' || sure < prefix + 2) break;
  }
  return prefix === walk ? 0 : prefix;
}

/** The statement marking the run wide before a loop over `length` elements longer than `over`. */
function markWide(length: string, over: number): string {
  return `if (${length} > ${over}) state.wide = true; // maps keyed by this data start as dictionaries (J.dict)`;
}

/** A new map that the write's next step (`keyStep`) sets a key of: a dictionary when the key comes from the data. */
function newMap(keyStep: WriteStep): string {
  return keyStep.constant ? '{}' : 'J.dict(state)';
}

/** Whether some output path has a map key taken from the data (`&…`, `@(…)`), not a constant. */
function writesDataKeys(outputs: readonly SpecOutput[]): boolean {
  return outputs.some(({ path }) => path.some((pe) => pe.kind === 'amp' || pe.kind === 'transpose'));
}

/** A statement setting map key `name` of `t` (`__proto__` becomes an own key, never the prototype). */
function writeKey(name: string, value: string): string {
  if (plainKeyExpr(name)) return `target[${name}] = ${value};`;
  if (name.startsWith('"')) return `J.set(target, ${name}, ${value});`;
  return `if (${name} === "__proto__") J.set(target, ${name}, ${value}); else target[${name}] = ${value};`;
}

/**
 * Inline Shiftr write (the specialised form of J.put): evaluate every key first (a null key or a
 * negative index skips the write), walk/create containers below the root, then set the last step,
 * merging into what is there through J.fm / J.fa.
 */
function emitPut(
  e: Emit,
  write: EmittedWrite,
  steps: readonly WriteStep[],
  data: string,
  container?: SharedContainer,
): void {
  const { out, ind, scope } = e;
  const sure = e.kinds.sureSteps(write.path);
  // the step whose container is made without looking whether it is there, the last key set so
  // (not for a container the run keeps: a run started inside this one, see RunContainers, empties
  // the variables, and the container is looked for again; that happens once per run anyway)
  const madeAt =
    write.walk !== undefined && !keptForRun(steps) && freshContainer(e.kinds, e.writer, write) ? steps.length - 2 : -1;
  const setFresh = freshKey(e.kinds, e.writer, write, sure);
  out.add(ind, `write: {`);
  const names = steps.map((step, i) => {
    if (step.kind === 'X' || step.constant) return step.key;
    let name: string;
    if (isInvariant(step.key)) name = scope.hoisted.name(step.key);
    else {
      name = `${step.kind === 'A' ? 'index' : 'key'}${i}`;
      out.add(ind + 1, `const ${name} = ${step.key};`);
    }
    if (step.kind === 'A' && (step.key.startsWith('J.index(') || step.key.startsWith('J.listIndex(')))
      out.add(ind + 1, `if (${name} < 0) break write;`);
    if (step.nullable) out.add(ind + 1, `if (${name} === null) break write;`);
    return name;
  });
  const [first, ...rest] = steps;
  if (first === undefined) {
    out.add(ind + 1, `J.fm(state, state.o, "root", ${data});`);
    out.add(ind, `}`);
    return;
  }
  // the container to write into: walked from the root (making what is missing), or found by an
  // earlier write of the function (keptContainer) or of the same run (`container`, see sharedContainers)
  const shared = write.walk !== undefined ? keptContainerOf(e, steps, names) : container;
  const at = shared === undefined ? ind + 1 : ind + 2;
  // the containers at the start of the walk that the run keeps (see runPrefix), found once per run
  const prefix = runPrefix(steps, sure);
  const start = prefix === 0 ? 'state.o.root' : e.runContainers.name(walkOf(steps.slice(0, prefix + 1)));
  if (shared === undefined) out.add(ind + 1, `let target = ${start};`);
  else {
    out.add(ind + 1, `let target = ${shared.name};`);
    out.add(ind + 1, shared.guarded ? `if (target === undefined || target === null) {` : `if (target === undefined) {`);
    out.add(at, `target = ${start};`);
  }
  const walkAt = prefix === 0 ? at : at + 1;
  if (prefix > 0) {
    out.add(at, `if (target === undefined) {`);
    out.add(walkAt, `target = state.o.root;`);
  }
  const root = first.kind === 'M' ? newMap(first) : 'J.own(state, [])';
  out.add(walkAt, `if (target === undefined || target === null) { target = ${root}; state.o.root = target; }`);
  if (sure === 0)
    out.add(walkAt, `else if (${first.kind === 'M' ? '!J.isMap(target)' : '!Array.isArray(target)'}) break write;`);
  steps.forEach((step, i) => {
    const next = rest[i];
    const name = names[i] ?? '';
    if (next === undefined) return;
    const stepAt = i < prefix ? walkAt : at;
    const fresh = next.kind === 'M' ? newMap(next) : 'J.own(state, [])';
    const wrongType = next.kind === 'M' ? '!J.isMap(next)' : '!Array.isArray(next)';
    out.add(stepAt, `{`);
    if (step.kind === 'X') {
      out.add(stepAt + 1, `const next = ${fresh}; target.push(next); target = next;`);
    } else if (step.kind === 'A') {
      out.add(stepAt + 1, `let next = ${name} < target.length ? target[${name}] : undefined;`);
      out.add(stepAt + 1, `if (next === undefined || next === null) {`);
      out.add(stepAt + 2, `next = ${fresh};`);
      out.add(stepAt + 2, `while (target.length < ${name}) target.push(null);`);
      out.add(stepAt + 2, `target[${name}] = next;`);
      out.add(stepAt + 1, `}`);
      if (sure <= i + 1) out.add(stepAt + 1, `else if (${wrongType}) break write;`);
      out.add(stepAt + 1, `target = next;`);
    } else if (i === madeAt) {
      out.add(stepAt + 1, `const next = ${fresh}; ${writeKey(name, 'next')}`);
      out.add(stepAt + 1, `target = next;`);
    } else {
      out.add(stepAt + 1, readKey(name, 'next'));
      out.add(stepAt + 1, `if (next === undefined || next === null) { next = ${fresh}; ${writeKey(name, 'next')} }`);
      if (sure <= i + 1) out.add(stepAt + 1, `else if (${wrongType}) break write;`);
      out.add(stepAt + 1, `target = next;`);
    }
    out.add(stepAt, `}`);
    if (i === prefix - 1) {
      out.add(walkAt, `${start} = target;`);
      out.add(at, `}`);
    }
  });
  if (shared !== undefined) {
    out.add(
      at,
      shared.guarded ? `if (${shared.name} === undefined) ${shared.name} = target;` : `${shared.name} = target;`,
    );
    out.add(ind + 1, `}`);
  }
  const last = steps[steps.length - 1] ?? first;
  const lastName = names[steps.length - 1] ?? '';
  if (last.kind === 'X') out.add(ind + 1, `target.push(${data});`);
  else if (setFresh) out.add(ind + 1, writeKey(lastName, data));
  else if (last.kind === 'A') out.add(ind + 1, `J.fa(state, target, ${lastName}, ${data});`);
  else if (lastName.startsWith('"') && !plainKeyExpr(lastName))
    out.add(ind + 1, `J.fm(state, target, ${lastName}, ${data});`);
  else {
    // the common case inline (a store specific to this site); merging into a list goes through J.fm
    out.add(ind + 1, readKey(lastName, 'existing', true));
    const merge = `J.fm(state, target, ${lastName}, ${data});`;
    out.add(ind + 1, `if (existing === undefined || existing === null) { ${writeKey(lastName, data)} } else ${merge}`);
  }
  out.add(ind, `}`);
}
