/**
 * Which containers of a shift's output the build proves to be of the kind a write walks through.
 * A write walks from the output root along its path, making a map (or a list) where a key is
 * missing and giving up when it finds something else there: a value another write put at that
 * path (or a list JOLT made of two values), or a container of the other kind. The check costs a
 * type test per step at run time. It can never fail at a path where every write of the spec that
 * may reach it goes on past it, making a container of the same kind: then whatever is there was made
 * by the shift itself. A write's path is sure up to its first step where that is not proven.
 * The same paths tell where a write can set its key, or make its container, without looking first
 * (freshKey, freshContainer): where no other write can have been first.
 */
import { isPlainObject, MAX_SPEC_DEPTH, splitOr } from './emit.js';
import { parseOutputPath, type PathElement, SpecError } from './keys.js';

/** An output path step as far as the build knows it: the kind of container it is in, its key if constant. */
interface Step {
  readonly inList: boolean;
  readonly key: string | undefined;
}

function stepOf(pe: PathElement): Step {
  if (pe.kind === 'array')
    return { inList: true, key: pe.index.type === 'explicit' ? String(pe.index.index) : undefined };
  return { inList: false, key: pe.kind === 'literal' ? pe.key : undefined };
}

/** Whether two steps may name the same place: unless both keys are constants of one kind and differ. */
function mayMeet(a: Step, b: Step): boolean {
  return a.key === undefined || b.key === undefined || a.inList !== b.inList || a.key === b.key;
}

/** An output path of a shift spec and the spec object whose key writes it. */
export interface SpecOutput {
  readonly path: readonly PathElement[];
  readonly owner: object;
}

export class ContainerKinds {
  private readonly paths: readonly (readonly Step[])[];
  private readonly owners: readonly object[];
  private readonly sure = new WeakMap<readonly PathElement[], number>();

  /**
   * `outputs`: every output path of the spec (all levels, all operands of every leaf), once per
   * function the spec compiles to (an `a|b` key gives two functions, or two leaves, writing the same paths).
   */
  constructor(outputs: readonly SpecOutput[]) {
    this.paths = outputs.map((output) => output.path.map(stepOf));
    this.owners = outputs.map((output) => output.owner);
  }

  /**
   * The owners of the output paths that may pass through or end at the place the first `length`
   * steps of `output` name, one per path (the path itself among them when it is one of the spec's).
   */
  ownersAt(output: readonly PathElement[], length: number): object[] {
    return this.owners.filter((_, i) => passesThrough(this.paths[i] ?? [], output.map(stepOf), length));
  }

  /**
   * How many containers of `output`, from the root on, are proven to be there with the kind it
   * expects, or missing: 0 checks the root already, `output.length` none.
   */
  sureSteps(output: readonly PathElement[]): number {
    const known = this.sure.get(output);
    if (known !== undefined) return known;
    const steps = output.map(stepOf);
    let depth = 0;
    while (depth < steps.length && this.sureAt(steps, depth)) depth++;
    this.sure.set(output, depth);
    return depth;
  }

  /**
   * The container `steps` reach after `depth` steps holds the kind of step `depth` whenever present:
   * every path that may reach it goes on with a step of that kind.
   */
  private sureAt(steps: readonly Step[], depth: number): boolean {
    const kind = steps[depth]?.inList;
    return this.paths.every((other) => !mayReach(other, steps, depth) || other[depth]?.inList === kind);
  }
}

/** Whether path `other` may pass through or end at the place the first `length` steps of `output` name. */
export function mayPassThrough(other: readonly PathElement[], output: readonly PathElement[], length: number): boolean {
  return passesThrough(other.map(stepOf), output.map(stepOf), length);
}

function passesThrough(other: readonly Step[], steps: readonly Step[], length: number): boolean {
  return other.length >= length && mayReach(other, steps, length);
}

/** Whether `other` may pass through (or end at) the place the first `depth` steps of `steps` name. */
function mayReach(other: readonly Step[], steps: readonly Step[], depth: number): boolean {
  const common = Math.min(depth, other.length);
  for (let i = 0; i < common; i++) {
    const a = other[i];
    const b = steps[i];
    if (a !== undefined && b !== undefined && !mayMeet(a, b)) return false;
  }
  return true;
}

/**
 * Every output path a shift spec names, under any key (also keys that fail to compile: more paths
 * only prove less). Paths that do not parse are left out: they fail the build.
 */
export function shiftOutputs(spec: Record<string, unknown>): SpecOutput[] {
  const outputs: SpecOutput[] = [];
  /** `copies`: how many functions the spec object `object` compiles to. */
  const visit = (object: Record<string, unknown>, copies: number, depth: number): void => {
    for (const key of Object.keys(object)) {
      const rhs = object[key];
      const times = Math.min(2, copies * splitOr(key).length); // one or more than one is what counts
      if (isPlainObject(rhs)) {
        if (depth <= MAX_SPEC_DEPTH) visit(rhs, times, depth + 1); // deeper fails the build
        continue;
      }
      const texts = typeof rhs === 'string' ? [rhs] : Array.isArray(rhs) ? rhs : [];
      for (const text of texts) {
        if (typeof text !== 'string') continue;
        let path: PathElement[];
        try {
          path = parseOutputPath(text);
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
          continue;
        }
        for (let i = 0; i < times; i++) outputs.push({ path, owner: object });
      }
    }
  };
  visit(spec, 1, 0);
  return outputs;
}

/** How often a spec object's function may run in one shift: once, once per key of its parent's data, or more. */
export type Runs = 'once' | 'perKey' | 'many';

/** A write of a spec object's own keys (a leaf, or an `@`, `$`, `#` key): its path and, if kept, its walk. */
export interface DirectWrite {
  readonly path: readonly PathElement[];
  /** The walk to its container when a variable of the function keeps it (see shift.ts keptContainer). */
  readonly walk: string | undefined;
}

/** What the function of one spec object knows for proving a place of the output fresh. */
export interface Writer {
  readonly owner: object;
  readonly runs: Runs;
  /** Key expressions that differ between two runs of the function (its own key, a `*` capture). */
  readonly ownKeys: ReadonlySet<string>;
  readonly direct: readonly DirectWrite[];
}

/** A write as emitted: its output path, evaluated keys (each `M`, `A` or `X`), its kept walk if any. */
export interface EmittedWrite {
  readonly path: readonly PathElement[];
  readonly keys: readonly { readonly kind: string; readonly key: string }[];
  readonly walk: string | undefined;
  /** For a leaf under a computed key (it runs once per key it matches): expressions of that key. */
  readonly leafKeys: ReadonlySet<string> | undefined;
}

/** Whether the function runs once, or the first `length` keys of `write` name one of its runs alone. */
function onePlacePerRun(writer: Writer, write: EmittedWrite, length: number): boolean {
  if (writer.runs === 'many') return false;
  if (writer.runs === 'once') return true;
  return write.keys.slice(0, length).some((step) => step.kind === 'M' && writer.ownKeys.has(step.key));
}

/**
 * Whether the container a kept walk reaches is surely missing when the function first walks there in
 * a run (then it is made without looking): the function makes a place of its own there in each run,
 * and only its own writes reach it, all walking the same way (so sharing the variable that keeps it).
 */
export function freshContainer(kinds: ContainerKinds, writer: Writer, write: EmittedWrite): boolean {
  const length = write.keys.length - 1;
  if (write.walk === undefined || write.keys[length - 1]?.kind !== 'M' || !onePlacePerRun(writer, write, length))
    return false;
  const owners = kinds.ownersAt(write.path, length);
  const direct = writer.direct.filter((other) => mayPassThrough(other.path, write.path, length));
  return (
    owners.every((owner) => owner === writer.owner) &&
    owners.length === direct.length &&
    direct.every((other) => other.walk === write.walk)
  );
}

/**
 * Whether the map key a write sets is surely missing before it: its containers are all the shift's
 * own (sure), no other write of the spec may reach that place, and the write reaches a different
 * place each time it runs.
 */
export function freshKey(kinds: ContainerKinds, writer: Writer, write: EmittedWrite, sure: number): boolean {
  const length = write.keys.length;
  if (sure < length || write.keys[length - 1]?.kind !== 'M' || !onePlacePerRun(writer, write, length)) return false;
  const leafKeys = write.leafKeys;
  if (leafKeys !== undefined && !write.keys.some((step) => step.kind === 'M' && leafKeys.has(step.key))) return false;
  return kinds.ownersAt(write.path, length).length === 1;
}
