/**
 * Build-time model of Jolt's WalkedPath for code generation: which spec level owns each matched key
 * (transposes and `@` reuse their parent's), what captures a level has, and the JS expressions that
 * read a level's key, captures, data and match count in the current generated scope. References such
 * as `&(2,1)`, `$1`, `[#2]` and `@(1,a.b)` become plain expressions here.
 */
import { type PathElement, type Ref, type Transpose, SpecError } from './keys.js';
import { lit, type ReadNames } from './emit.js';
import * as E from './errors.js';

export type CaptureKind = 'none' | 'single' | 'double' | 'regex';

export interface Level {
  /** The level whose matched key this level shares (itself unless it is `@`/transpose). */
  readonly owner: number;
  readonly capture: CaptureKind;
  /** Number of `*` groups for regex captures. */
  readonly groups: number;
}

export interface LocalNames {
  readonly key?: string;
  readonly cap?: string;
  readonly data?: string;
  readonly hash?: string;
}

/**
 * Expressions computed once at the top of one generated function instead of at each use: the keys
 * of output paths that depend only on the function's own key, captures and data (and on outer
 * levels), such as the `J.index(k)` of `lines[&1].code`. Such expressions are pure and cannot throw.
 */
export class Hoisted {
  private readonly names = new Map<string, string>();
  private readonly containers = new Map<string, string>();
  readonly declarations: string[] = [];

  /** The name of a `const` holding `expr` (one per distinct expression). */
  name(expr: string): string {
    let name = this.names.get(expr);
    if (name === undefined) {
      name = `fixedKey${this.names.size + 1}`;
      this.names.set(expr, name);
      this.declarations.push(`const ${name} = ${expr};`);
    }
    return name;
  }

  /**
   * The name of a `let` caching, once found, the container a walk with keys fixed for the function
   * reaches (one per distinct walk; see ContainerKinds: a container no write replaces stays found).
   */
  container(walk: string): string {
    let name = this.containers.get(walk);
    if (name === undefined) {
      name = `made${this.containers.size + 1}`;
      this.containers.set(walk, name);
      this.declarations.push(`let ${name}; // a container writes below share, once found`);
    }
    return name;
  }
}

/**
 * The walked-path slots (`state.K[n]` keys, `state.C[n]` captures, `state.T[n]` data, `state.O[n]`
 * original list sizes) that generated code reads. A generated function finishes after all functions below it
 * (which are the only readers of its slots), so it stores only the slots something reads.
 */
export class SlotReads {
  private readonly read = new Set<string>();

  /** Records a read and returns the slot's expression, e.g. `state.T[2]`. */
  slot(kind: 'K' | 'C' | 'T' | 'O' | 'H', level: number): string {
    const slot = `state.${kind}[${level}]`;
    this.read.add(slot);
    return slot;
  }

  has(kind: 'K' | 'C' | 'T' | 'O' | 'H', level: number): boolean {
    return this.read.has(`state.${kind}[${level}]`);
  }
}

/**
 * How a spec object's function reads its own key as text: `key`, or, when a list loop called it with
 * the index `index` and no text (`key` null), that index's decimal text, made only where it is used.
 */
export const OWN_KEY = 'J.keyText(key, index)';

/** Identifiers an invariant expression may use: the function's parameters and the runtime. */
const INVARIANT_NAMES = new Set(['key', 'captures', 'data', 'index', 'state', 'J', 'String']);

/**
 * Whether a generated key expression has the same value everywhere in its function: it reads only
 * the function's parameters `key`, `captures`, `data`, the walked-path slots of outer levels (not the match
 * counts `state.H`, which change as children match) and hoisted map readers.
 */
export function isInvariant(expr: string): boolean {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (code.includes('state.H')) return false;
  for (const m of code.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)) {
    if (!INVARIANT_NAMES.has(m[0]) && !/^get\d+$/.test(m[0])) return false;
  }
  return true;
}

/** Levels from the root to the current one, plus JS names bound locally in the current scope. */
export class Scope {
  constructor(
    readonly levels: readonly Level[],
    readonly locals: ReadonlyMap<number, LocalNames>,
    /** How generated code reads literal map keys (hoisted per-key readers of the Program). */
    readonly reads: ReadNames,
    /** Whether match counts (`[#n]`) are kept: only when the spec refers to them. */
    readonly counts = true,
    /** The slots read by the code of one operation (shared by all its scopes). */
    readonly slots = new SlotReads(),
    /** Expressions hoisted to the top of the current generated function. */
    readonly hoisted = new Hoisted(),
  ) {}

  /** The scope inside a new generated function for `level`: outer levels are read from `S` slots. */
  enter(level: number, info: Level, names: LocalNames): Scope {
    return new Scope(
      [...this.levels.slice(0, level), info],
      new Map([[level, names]]),
      this.reads,
      this.counts,
      this.slots,
    );
  }

  with(level: number, info: Level, names: LocalNames): Scope {
    const levels = [...this.levels.slice(0, level), info];
    const locals = new Map(this.locals);
    locals.set(level, names);
    return new Scope(levels, locals, this.reads, this.counts, this.slots, this.hoisted);
  }

  private levelAt(at: number, up: number, what: string): number {
    const index = at - up;
    if (index < 0 || index >= this.levels.length) {
      throw new SpecError(E.aboveTheTop(what, up));
    }
    return index;
  }

  private ownerOf(index: number): number {
    return this.levels[index]?.owner ?? index;
  }

  keyOf(at: number, ref: Ref, what: string): string {
    const owner = this.ownerOf(this.levelAt(at, ref.pathIndex, what));
    const level = this.levels[owner];
    const names = this.locals.get(owner);
    if (ref.keyGroup === 0) return names?.key ?? this.slots.slot('K', owner);
    const cap = names?.cap ?? this.slots.slot('C', owner);
    const g = ref.keyGroup;
    if (level?.capture === 'single' && g === 1) return cap;
    if (level?.capture === 'double' && g <= 2) return `${cap}[${g - 1}]`;
    if (level?.capture === 'regex' && g <= level.groups) return `${cap}[${g}]`;
    throw new SpecError(E.noSuchGroup(what, g, groupCount(level)));
  }

  hashOf(at: number, up: number, what: string): string {
    const owner = this.ownerOf(this.levelAt(at, up, what));
    return this.locals.get(owner)?.hash ?? this.slots.slot('H', owner);
  }

  dataOf(at: number, up: number, what: string): string {
    const index = this.levelAt(at, up, what);
    return this.locals.get(index)?.data ?? this.slots.slot('T', index);
  }

  /** `state.H[owner]++` for the level a finished child counts towards (nothing when counts are unused). */
  countMatch(level: number): string {
    if (!this.counts) return '';
    const owner = this.ownerOf(level);
    return `state.H[${owner}]++;`;
  }
}

function groupCount(level: Level | undefined): string {
  if (level === undefined || level.capture === 'none') return 'no `*` groups';
  const n = level.capture === 'single' ? 1 : level.capture === 'double' ? 2 : level.groups;
  return `${n} group${n === 1 ? '' : 's'}`;
}

function ampExpr(scope: Scope, at: number, tokens: readonly (string | Ref)[]): string {
  const parts = tokens.map((t) =>
    typeof t === 'string' ? lit(t) : scope.keyOf(at, t, `\`&(${t.pathIndex},${t.keyGroup})\``),
  );
  if (parts.length === 0) return '""';
  return parts.length === 1 && typeof tokens[0] !== 'string' ? (parts[0] ?? '""') : `(${parts.join(' + ')})`;
}

/** Expression reading `@(up, sub)`: the value, or J.N when the path does not exist. */
export function readExpr(scope: Scope, at: number, t: Transpose): string {
  return readPathExpr(scope, at, scope.dataOf(at, t.upLevel, `\`@(${t.upLevel},…)\``), t.sub ?? []);
}

/** Expression reading `path` below the value of `base` (J.N when absent). */
export function readPathExpr(scope: Scope, at: number, base: string, path: readonly PathElement[]): string {
  let expr = base;
  for (const pe of path) {
    switch (pe.kind) {
      case 'literal':
        expr = scope.reads.readMap(expr, pe.key);
        break;
      case 'amp':
        expr = `J.gm(${expr}, ${ampExpr(scope, at, pe.tokens)})`;
        break;
      case 'transpose':
        expr = `J.gm(${expr}, J.tkey(${readExpr(scope, at, pe.transpose)}))`;
        break;
      case 'array':
        expr = pe.index.type === 'auto' ? 'J.N' : `J.ga(${expr}, ${arrayIndexExpr(scope, at, pe)})`;
        break;
      default:
        throw new SpecError(E.badLookupPath());
    }
  }
  return expr;
}

/** The index text (or null) of `[n]`, `[&n]`, `[#n]`, `[@…]`. */
export function arrayIndexExpr(scope: Scope, at: number, pe: Extract<PathElement, { kind: 'array' }>): string {
  const index = pe.index;
  switch (index.type) {
    case 'auto':
      return lit('[]');
    case 'explicit':
      return lit(String(index.index));
    case 'ref':
      return `J.idx(${scope.keyOf(at, index.ref, `\`[&(${index.ref.pathIndex},${index.ref.keyGroup})]\``)})`;
    case 'hash':
      return `String(${scope.hashOf(at, index.pathIndex, `\`[#${index.pathIndex}]\``)})`;
    case 'transpose':
      return `J.idx(J.tkey(${readExpr(scope, at, index.transpose)}))`;
  }
}

/** What an evaluatable path element (`&…`, literal, `[…]`, `@(…)`) evaluates to, as a JS string expression. */
export function evaluateExpr(scope: Scope, at: number, pe: PathElement): string {
  switch (pe.kind) {
    case 'literal':
      return lit(pe.key);
    case 'amp':
      return ampExpr(scope, at, pe.tokens);
    case 'array':
      return arrayIndexExpr(scope, at, pe);
    case 'transpose':
      return `J.tkey(${readExpr(scope, at, pe.transpose)})`;
    case 'dollar':
      return scope.keyOf(at, pe.ref, `\`$(${pe.ref.pathIndex},${pe.ref.keyGroup})\``);
    case 'hash':
      return lit(pe.value);
    default:
      throw new SpecError(E.notEvaluable());
  }
}

/**
 * One step of an output path (Traversr): `M` a map key (`key` a string expression, or null when
 * `nullable`), `A` a list index (`key` a number expression, -1 when the index is unusable), `X` an
 * append (`[]`, no key). `constant` keys are literals.
 */
export interface WriteStep {
  readonly kind: 'M' | 'A' | 'X';
  readonly key: string;
  readonly constant: boolean;
  readonly nullable: boolean;
}

/** The list index of `[n]`, `[&n]`, `[#n]`, `[@…]` as a number expression (-1: skip the write). */
function arrayIndexNumber(
  scope: Scope,
  at: number,
  pe: Extract<PathElement, { kind: 'array' }>,
): { key: string; constant: boolean } {
  const index = pe.index;
  switch (index.type) {
    case 'auto':
      return { key: '-1', constant: true };
    case 'explicit':
      return { key: String(index.index), constant: true };
    case 'ref': {
      const key = scope.keyOf(at, index.ref, `\`[&(${index.ref.pathIndex},${index.ref.keyGroup})]\``);
      // a function's own key comes with `index`, the same index as a number, from a list loop
      return { key: key === OWN_KEY ? 'J.listIndex(key, index)' : `J.index(${key})`, constant: false };
    }
    case 'hash':
      return { key: scope.hashOf(at, index.pathIndex, `\`[#${index.pathIndex}]\``), constant: false };
    case 'transpose':
      return { key: `J.index(J.tkey(${readExpr(scope, at, index.transpose)}))`, constant: false };
  }
}

/** The Traversr steps of an output path, with their keys evaluated in `scope`. */
export function writeSteps(scope: Scope, at: number, path: readonly PathElement[]): WriteStep[] {
  return path.map((pe): WriteStep => {
    if (pe.kind === 'array') {
      if (pe.index.type === 'auto') return { kind: 'X', key: '', constant: true, nullable: false };
      return { kind: 'A', ...arrayIndexNumber(scope, at, pe), nullable: false };
    }
    const key = evaluateExpr(scope, at, pe);
    return { kind: 'M', key, constant: pe.kind === 'literal' || pe.kind === 'hash', nullable: pe.kind === 'transpose' };
  });
}
