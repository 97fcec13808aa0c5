/**
 * Which containers of a shift's output the build proves to be of the kind a write walks through.
 * A write walks from the output root along its path, making a map (or a list) where a key is
 * missing and giving up when it finds something else there: a value another write put at that
 * path (or a list JOLT made of two values), or a container of the other kind. The check costs a
 * type test per step at run time. It can never fail at a path where every write of the spec that
 * may reach it goes on past it, making a container of the same kind: then whatever is there was made
 * by the shift itself. A write's path is sure up to its first step where that is not proven.
 */
import { isPlainObject, MAX_SPEC_DEPTH } from './emit.js';
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

export class ContainerKinds {
  private readonly paths: readonly (readonly Step[])[];
  private readonly sure = new WeakMap<readonly PathElement[], number>();

  /** `outputs`: every output path of the spec (all levels, all operands of every leaf). */
  constructor(outputs: readonly (readonly PathElement[])[]) {
    this.paths = outputs.map((output) => output.map(stepOf));
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
export function shiftOutputs(spec: Record<string, unknown>): PathElement[][] {
  const outputs: PathElement[][] = [];
  const visit = (object: Record<string, unknown>, depth: number): void => {
    for (const key of Object.keys(object)) {
      const rhs = object[key];
      if (isPlainObject(rhs)) {
        if (depth <= MAX_SPEC_DEPTH) visit(rhs, depth + 1); // deeper fails the build
        continue;
      }
      const texts = typeof rhs === 'string' ? [rhs] : Array.isArray(rhs) ? rhs : [];
      for (const text of texts) {
        if (typeof text !== 'string') continue;
        try {
          outputs.push(parseOutputPath(text));
        } catch (e) {
          if (!(e instanceof SpecError)) throw e;
        }
      }
    }
  };
  visit(spec, 0);
  return outputs;
}
