/**
 * The output shape of a `shift`, inferred at build time from its spec and the shape of its input.
 * The spec is walked against the input's type the way the generated code walks the data
 * (shift.ts): literal keys read the fields they name, wildcards match the fields of a closed object
 * one by one (or stand for every key an open object, a list or an unknown value may have), `@`,
 * `$`, `#` and `@(n,path)` keys see what their level sees. Each leaf's output paths become writes
 * into a shape-tree.ts tree, which gives the type.
 *
 * Also found: literal keys that can never match because the input there is a closed object
 * without that field (`unmatched`, reported as warnings by infer-shape.ts).
 *
 * Only specs that compiled without errors are given here; a spec too large to follow within the
 * budget gives `unknown`.
 */
import {
  parseOutputPath,
  parseKey,
  isStar,
  starMatches,
  compareComputedKeys,
  type PathElement,
  type Ref,
} from './keys.js';
import { isPlainObject, splitOr, type JsonPath } from './emit.js';
import { star2, starN } from '../../runtime/jolt/index.js';
import { parseJavaInt } from '../../runtime/jolt/java.js';
import { NULL, STRING, UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';
import { OutNode, typeOfTree, type OutKey, type OutStep } from './shape-tree.js';
import { fieldOf, membersOf, readPath } from './shape-read.js';

/** A literal key that no input of the shape has (the input there is a closed object). */
export interface UnmatchedKey {
  readonly path: JsonPath;
  readonly key: string;
  /** The fields the closed object has (for did-you-mean). */
  readonly fields: readonly string[];
}

export interface ShiftShape {
  readonly type: PipeType;
  readonly unmatched: readonly UnmatchedKey[];
}

/** Thrown when the walk exceeds its budget: the output is then `unknown`. */
class TooLarge extends Error {}

const BUDGET = 20000;

/** What one spec level matched: its key (known, one of many, or unknown), captures and data. */
interface Binding {
  /** The level whose key this level shares (`@` and `@(…)` keys share their parent's). */
  readonly owner: number;
  readonly key: OutKey | undefined;
  /** `*` groups of the key, when the key is known. */
  readonly captures: readonly string[] | undefined;
  readonly data: PipeType;
}

/** How a child of a spec object may be reached by one input key. */
interface Arrival {
  readonly key: OutKey | undefined;
  readonly captures: readonly string[] | undefined;
  readonly data: PipeType;
  readonly definite: boolean;
  /** The arrival stands for any number of keys (a wildcard over keys not known at build time). */
  readonly many: boolean;
}

interface Child {
  readonly pe: PathElement;
  readonly rhs: unknown;
  readonly path: JsonPath;
  readonly text: string;
  readonly outputs: readonly (readonly PathElement[])[];
}

interface KeyReport {
  reached: boolean;
  possible: boolean;
  fields: Set<string>;
  readonly key: string;
  readonly path: JsonPath;
}

class Walker {
  readonly root = new OutNode();
  private steps = 0;
  private nextSym = 1;
  readonly reports = new Map<string, KeyReport>();

  tick(): void {
    this.steps += 1;
    if (this.steps > BUDGET) throw new TooLarge();
  }

  sym(): OutKey {
    this.nextSym += 1;
    return { kind: 'sym', id: this.nextSym };
  }

  report(child: Child): KeyReport {
    const id = `${JSON.stringify(child.path)}|${child.text}`;
    let r = this.reports.get(id);
    if (r === undefined) {
      r = { reached: false, possible: false, fields: new Set(), key: child.text, path: child.path };
      this.reports.set(id, r);
    }
    return r;
  }
}

/** The walk's position: the levels matched so far, whether they always match, the wildcard levels. */
interface At {
  readonly levels: readonly Binding[];
  readonly definite: boolean;
  /** Symbols of the levels on the way that stand for many keys. */
  readonly many: readonly number[];
  /** Whether the levels since the last of those always match (on each of its passes). */
  readonly definitePerPass: boolean;
}

/** The output shape of `shift` with `spec` on an input of shape `input`. */
export function inferShift(spec: unknown, input: PipeType, path: JsonPath): ShiftShape {
  if (!isPlainObject(spec)) return { type: UNKNOWN, unmatched: [] };
  const walker = new Walker();
  const rootBinding: Binding = { owner: 0, key: { kind: 'text', text: 'root' }, captures: undefined, data: input };
  try {
    walkObject(walker, spec, path, {
      levels: [rootBinding, { ...rootBinding, owner: 1 }],
      definite: true,
      many: [],
      definitePerPass: true,
    });
  } catch (e) {
    if (e instanceof TooLarge) return { type: UNKNOWN, unmatched: [] };
    throw e;
  }
  const written = typeOfTree(walker.root);
  const type = walker.root.definite ? written : union(written, NULL);
  const unmatched = [...walker.reports.values()]
    .filter((r) => r.reached && !r.possible)
    .map((r) => ({ path: r.path, key: r.key, fields: [...r.fields].sort() }));
  return { type, unmatched };
}

function childrenOf(spec: Record<string, unknown>, path: JsonPath): Child[] {
  const children: Child[] = [];
  for (const rawKey of Object.keys(spec)) {
    const rhs = spec[rawKey];
    for (const text of splitOr(rawKey)) {
      const pe = parseKey(text);
      const texts = isPlainObject(rhs) || rhs === null ? [] : Array.isArray(rhs) ? rhs : [rhs];
      const outputs = texts.filter((t): t is string => typeof t === 'string').map(parseOutputPath);
      children.push({ pe, rhs, path: [...path, rawKey], text, outputs });
    }
  }
  return children;
}

function computedOrder(a: Child, b: Child): number {
  return compareComputedKeys(a.pe, b.pe);
}

/** The spec object at `path`, reached at `at` (its own binding is the last level). */
function walkObject(w: Walker, spec: Record<string, unknown>, path: JsonPath, at: At): void {
  w.tick();
  const level = at.levels.length - 1;
  const self = at.levels[level] as Binding;
  const children = childrenOf(spec, path);
  for (const child of children) {
    if (
      child.pe.kind === 'at' ||
      child.pe.kind === 'hash' ||
      child.pe.kind === 'dollar' ||
      child.pe.kind === 'transpose'
    )
      walkSpecial(w, child, at, level, self);
  }
  const literals = children.filter((c) => c.pe.kind === 'literal');
  const computed = children.filter((c) => isStar(c.pe) || c.pe.kind === 'amp' || c.pe.kind === 'array');
  computed.sort(computedOrder);
  if (literals.length === 0 && computed.length === 0) return;
  for (const child of literals) noteReach(w, child, self.data);
  const arrivals = arrivalsOf(self.data, literals, computed, at, level);
  for (const [child, list] of arrivals) for (const arrival of merged(list)) enter(w, child, arrival, at);
}

/** Whether the literal key `child` can match the data (for the unmatched-key warning). */
function noteReach(w: Walker, child: Child, data: PipeType): void {
  const key = (child.pe as { key: string }).key;
  const report = w.report(child);
  for (const member of membersOf(data)) {
    if (member.kind === 'null') continue;
    report.reached = true;
    if (member.kind === 'object' && !member.open) {
      if (Object.hasOwn(member.fields, key)) report.possible = true;
      else Object.keys(member.fields).forEach((f) => report.fields.add(f));
    } else report.possible = true;
  }
}

/** Arrivals of one input key at equal keys are one arrival (of the union of their data). */
function merged(list: readonly Arrival[]): Arrival[] {
  const byKey = new Map<string, Arrival>();
  const out: Arrival[] = [];
  for (const a of list) {
    if (a.many || a.key?.kind !== 'text') {
      out.push(a);
      continue;
    }
    const previous = byKey.get(a.key.text);
    if (previous === undefined) byKey.set(a.key.text, a);
    else byKey.set(a.key.text, { ...previous, data: union(previous.data, a.data), definite: false });
  }
  return [...byKey.values(), ...mergeMany(out)];
}

function mergeMany(list: readonly Arrival[]): Arrival[] {
  const many = list.filter((a) => a.many);
  const single = list.filter((a) => !a.many);
  if (many.length <= 1) return list.slice();
  const first = many[0] as Arrival;
  return [...single, { ...first, data: union(...many.map((a) => a.data)), definite: false }];
}

const INDEX_KEY = /^[+-]?\d+$/;

function arrivalsOf(
  data: PipeType,
  literals: readonly Child[],
  computed: readonly Child[],
  at: At,
  level: number,
): Map<Child, Arrival[]> {
  const out = new Map<Child, Arrival[]>();
  const push = (child: Child, arrival: Arrival): void => {
    const list = out.get(child);
    if (list) list.push(arrival);
    else out.set(child, [arrival]);
  };
  const definiteObject = data.kind === 'object';
  const known = (text: string, value: PipeType, definite: boolean, captures?: readonly string[]): Arrival => ({
    key: { kind: 'text', text },
    captures,
    data: value,
    definite,
    many: false,
  });
  const anyKeys = (value: PipeType): void => {
    for (const child of computed) {
      const fixed = fixedKeyOf(child, at, level);
      if (fixed === null) continue;
      if (fixed !== undefined) push(child, known(fixed, value, false));
      else push(child, { key: undefined, captures: undefined, data: value, definite: false, many: true });
    }
  };
  for (const member of membersOf(data)) {
    switch (member.kind) {
      case 'null':
        break;
      case 'object': {
        const claimed = new Set<string>();
        for (const child of literals) {
          const key = (child.pe as { key: string }).key;
          const field = fieldOf(member, key);
          if (field === 'missing') continue;
          claimed.add(key);
          push(child, known(key, field.type, definiteObject && field.required));
        }
        for (const [name, field] of Object.entries(member.fields)) {
          if (claimed.has(name)) continue;
          routeKey(name, field.type, definiteObject && field.required, computed, at, level, push);
        }
        if (member.open) anyKeys(UNKNOWN);
        break;
      }
      case 'array':
        for (const child of literals) {
          if (INDEX_KEY.test((child.pe as { key: string }).key))
            push(child, known((child.pe as { key: string }).key, member.items, false));
        }
        anyKeys(member.items);
        break;
      case 'unknown':
        for (const child of literals) push(child, known((child.pe as { key: string }).key, UNKNOWN, false));
        anyKeys(UNKNOWN);
        break;
      default:
        // a scalar matches a key equal to its text; its value is then null
        for (const child of literals) push(child, known((child.pe as { key: string }).key, NULL, false));
        for (const child of computed) {
          const fixed = fixedKeyOf(child, at, level);
          if (fixed === null) continue;
          push(
            child,
            fixed !== undefined
              ? known(fixed, NULL, false)
              : { key: undefined, captures: undefined, data: NULL, definite: false, many: false },
          );
        }
    }
  }
  return out;
}

/**
 * The input key a computed `&…` or `[…]` key matches when it is known at build time (null: it
 * matches none, an index reference to a key that is no index).
 */
function fixedKeyOf(child: Child, at: At, level: number): string | null | undefined {
  if (child.pe.kind === 'amp') {
    const key = ampKey(child.pe.tokens, at.levels, level);
    return key?.kind === 'text' ? key.text : undefined;
  }
  if (child.pe.kind === 'array') {
    const index = child.pe.index;
    if (index.type === 'explicit') return String(index.index);
    if (index.type === 'ref') {
      const key = keyOf(at.levels, level, index.ref);
      if (key?.kind === 'text') {
        const n = parseJavaInt(key.text);
        return n !== undefined && n >= 0 ? key.text : null;
      }
    }
  }
  return undefined;
}

/** The first computed key that takes input key `name` (those that may take it, when not sure). */
function routeKey(
  name: string,
  type: PipeType,
  definite: boolean,
  computed: readonly Child[],
  at: At,
  level: number,
  push: (child: Child, arrival: Arrival) => void,
): void {
  let sure = true;
  for (const child of computed) {
    const pe = child.pe;
    if (isStar(pe)) {
      if (!starMatches(pe, name)) continue;
      push(child, {
        key: { kind: 'text', text: name },
        captures: capturesOf(pe, name),
        data: type,
        definite: definite && sure,
        many: false,
      });
      return;
    }
    const fixed = fixedKeyOf(child, at, level);
    if (fixed === null || (fixed !== undefined && fixed !== name)) continue;
    push(child, {
      key: { kind: 'text', text: name },
      captures: undefined,
      data: type,
      definite: definite && sure && fixed !== undefined,
      many: false,
    });
    if (fixed !== undefined) return;
    sure = false;
  }
}

function capturesOf(pe: PathElement, key: string): readonly string[] | undefined {
  switch (pe.kind) {
    case 'star-single':
      return [key.slice(pe.prefix.length, key.length - pe.suffix.length)];
    case 'star-double': {
      const groups = star2(key, pe.prefix, pe.mid, pe.suffix);
      return groups ?? undefined;
    }
    case 'star-regex': {
      const groups = starN(key, pe.parts);
      return groups ? groups.slice(1) : undefined;
    }
    default:
      return undefined;
  }
}

/** A child matched: a spec object is walked one level down, a leaf writes its output paths. */
function enter(w: Walker, child: Child, arrival: Arrival, at: At): void {
  const level = at.levels.length;
  const key = arrival.many ? w.sym() : arrival.key;
  const binding: Binding = { owner: level, key, captures: arrival.captures, data: arrival.data };
  const next: At = {
    levels: [...at.levels, binding],
    definite: at.definite && arrival.definite,
    many: arrival.many && key?.kind === 'sym' ? [...at.many, key.id] : at.many,
    definitePerPass: arrival.many || (at.definitePerPass && arrival.definite),
  };
  if (isPlainObject(child.rhs)) walkObject(w, child.rhs, child.path, next);
  else writeAll(w, child, next, arrival.data);
}

/** `@`, `@(…)`, `$…` and `#…` keys: they see the object's own key and data, and always run. */
function walkSpecial(w: Walker, child: Child, at: At, level: number, self: Binding): void {
  const pe = child.pe;
  // `@` and `@(…)` levels share the object's key (its owner's) and see its data
  const alias = self;
  switch (pe.kind) {
    case 'at':
      writeAll(w, child, { ...at, levels: [...at.levels, alias] }, self.data);
      return;
    case 'transpose': {
      const found = readPath(at.levels[level - pe.transpose.upLevel]?.data, pe.transpose.sub ?? [], (tokens) =>
        textOf(ampKey(tokens, at.levels, level)),
      );
      if (found === undefined) return;
      const next: At = {
        ...at,
        definite: at.definite && found.definite,
        definitePerPass: at.definitePerPass && found.definite,
      };
      if (isPlainObject(child.rhs))
        walkObject(w, child.rhs, child.path, { ...next, levels: [...at.levels, { ...alias, data: found.type }] });
      else writeAll(w, child, { ...next, levels: [...at.levels, alias] }, found.type);
      return;
    }
    case 'dollar': {
      const key = keyOf(at.levels, level, pe.ref);
      const value: PipeType = key?.kind === 'text' ? { kind: 'string', enum: [key.text] } : STRING;
      const own: Binding = { owner: level + 1, key, captures: undefined, data: self.data };
      writeAll(w, child, { ...at, levels: [...at.levels, own] }, value);
      return;
    }
    case 'hash': {
      const own: Binding = {
        owner: level + 1,
        key: { kind: 'text', text: pe.value },
        captures: undefined,
        data: self.data,
      };
      const next: At = { ...at, levels: [...at.levels, own] };
      if (isPlainObject(child.rhs)) walkObject(w, child.rhs, child.path, next);
      else writeAll(w, child, next, { kind: 'string', enum: [pe.value] });
      return;
    }
    default:
      return;
  }
}

function textOf(key: OutKey | undefined): string | undefined {
  return key?.kind === 'text' ? key.text : undefined;
}

/** The key `&(n,g)` reads at `at`: known text, a wildcard level's symbol, or unknown. */
function keyOf(levels: readonly Binding[], at: number, ref: Ref): OutKey | undefined {
  const index = at - ref.pathIndex;
  const binding = levels[index];
  if (binding === undefined) return undefined;
  const owner = levels[binding.owner] ?? binding;
  if (ref.keyGroup === 0) return owner.key;
  const capture = owner.captures?.[ref.keyGroup - 1];
  return capture === undefined ? undefined : { kind: 'text', text: capture };
}

/** An `&` key: literal text and references joined; a lone reference keeps its symbol. */
function ampKey(tokens: readonly (string | Ref)[], levels: readonly Binding[], at: number): OutKey | undefined {
  const parts = tokens.map((t) =>
    typeof t === 'string' ? ({ kind: 'text', text: t } as OutKey) : keyOf(levels, at, t),
  );
  if (parts.length === 1) return parts[0];
  if (parts.every((p) => p?.kind === 'text'))
    return { kind: 'text', text: parts.map((p) => (p as { text: string }).text).join('') };
  return undefined;
}

/** A leaf's writes: each output path evaluated at the leaf's level. */
function writeAll(w: Walker, child: Child, at: At, value: PipeType): void {
  w.tick();
  const level = at.levels.length - 1;
  for (const output of child.outputs) {
    const steps: OutStep[] = [];
    let definite = at.definite;
    const lastMany = at.many[at.many.length - 1];
    let definitePerPass = at.definitePerPass;
    let skipped = false;
    for (const pe of output) {
      const step = stepOf(pe, at.levels, level);
      if (step === 'skip') {
        skipped = true;
        break;
      }
      if (!step.definite) definite = false;
      // the last wildcard level's own key: the element it keys exists only when this write is made
      if (!step.definite && !symbolsOf(step.step).includes(lastMany ?? 0)) definitePerPass = false;
      steps.push(step.step);
    }
    if (skipped) continue;
    const named = new Set(steps.flatMap(symbolsOf));
    const appends = steps.some((s) => s.kind === 'append');
    const repeated = !appends && at.many.some((id) => !named.has(id));
    const perPass = lastMany === undefined ? {} : { perPass: { sym: lastMany, definite: definitePerPass } };
    w.root.add({ steps, value, definite, repeated, ...perPass });
  }
}

function symbolsOf(step: OutStep): number[] {
  if (step.kind === 'map' && step.key?.kind === 'sym') return [step.key.id];
  if (step.kind === 'index' && typeof step.index === 'object' && step.index.kind === 'sym') return [step.index.id];
  return [];
}

/** One output path element as a write step ('skip': the write never happens). */
function stepOf(
  pe: PathElement,
  levels: readonly Binding[],
  at: number,
): { step: OutStep; definite: boolean } | 'skip' {
  switch (pe.kind) {
    case 'literal':
      return { step: { kind: 'map', key: { kind: 'text', text: pe.key } }, definite: true };
    case 'amp': {
      const key = ampKey(pe.tokens, levels, at);
      return { step: { kind: 'map', key }, definite: key !== undefined };
    }
    case 'transpose':
      return { step: { kind: 'map', key: undefined }, definite: false };
    case 'array': {
      const index = pe.index;
      switch (index.type) {
        case 'auto':
          return { step: { kind: 'append' }, definite: true };
        case 'explicit':
          return { step: { kind: 'index', index: index.index }, definite: true };
        case 'ref': {
          const key = keyOf(levels, at, index.ref);
          if (key?.kind === 'text') {
            const n = parseJavaInt(key.text);
            return n === undefined || n < 0 ? 'skip' : { step: { kind: 'index', index: n }, definite: true };
          }
          return { step: { kind: 'index', index: key }, definite: false };
        }
        default:
          return { step: { kind: 'index', index: undefined }, definite: false };
      }
    }
    default:
      return { step: { kind: 'map', key: undefined }, definite: false };
  }
}
