/**
 * The output a `shift` builds, as a tree of abstract writes (infer-shift.ts fills it): each write
 * walks map keys (known text, or a key only known at run time) and list steps (a known index, an
 * index known at run time, or an append `[]`) and sets a value of a known type. `typeOfTree` turns
 * the tree into the PipeType of the output, following Shiftr's rule that a place written twice
 * holds a list of the values, and staying open (or `unknown`) wherever writes may meet at run time.
 *
 * Example: writes `a.b ← string` (definite) and `a.c ← number` (maybe) give
 *   { a: { b: string, c?: number } } (closed: shift writes nothing else).
 */
import { arrayOf, NULL, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';

/** A map key or list index of an output path: known, or one of the keys a wildcard level matched. */
export type OutKey = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'sym'; readonly id: number };

export type OutStep =
  | { readonly kind: 'map'; readonly key: OutKey | undefined }
  | { readonly kind: 'index'; readonly index: number | OutKey | undefined }
  | { readonly kind: 'append' };

export interface Write {
  readonly steps: readonly OutStep[];
  readonly value: PipeType;
  /** The write happens on every input of the shape. */
  readonly definite: boolean;
  /** One write site may set the same place more than once (a wildcard level its path does not name). */
  readonly repeated: boolean;
  /**
   * The symbol of the last wildcard level on the way (see infer-shift.ts), when there is one, and
   * whether the write happens on every pass of that level: then, below the list element or map
   * entry that the symbol keys, the write is there whenever the element is.
   */
  readonly perPass?: { readonly sym: number; readonly definite: boolean };
}

interface Leaf {
  readonly type: PipeType;
  readonly repeated: boolean;
}

/** One place of the output. */
export class OutNode {
  readonly leaves: Leaf[] = [];
  readonly fields = new Map<string, OutNode>();
  /** Writes under map keys known only at run time (they may meet any field). */
  anyField: OutNode | undefined;
  readonly indexed = new Map<number, OutNode>();
  /** Writes under list indexes known only at run time. */
  anyIndex: OutNode | undefined;
  /** One node per appending write (`[]`): each makes a new element. */
  readonly appended: OutNode[] = [];
  /** Something is written here (or below) on every input of the shape. */
  definite = false;
  /** Something is written here whenever the element (or entry) keyed by a wildcard level above is. */
  definitePerPass = false;
  /** The keys (symbols, -1 for any other) of the writes that reached this node through a run-time key. */
  readonly entries = new Set<number>();

  /** Adds a write from step `from` on; `perPass`: the write has passed the step keyed by its last wildcard. */
  add(write: Write, from = 0, perPass = false): void {
    if (write.definite) this.definite = true;
    if (perPass && write.perPass?.definite === true) this.definitePerPass = true;
    const step = write.steps[from];
    if (step === undefined) {
      this.leaves.push({ type: write.value, repeated: write.repeated });
      return;
    }
    const child = this.childFor(step);
    const key = step.kind === 'map' ? step.key : step.kind === 'index' ? step.index : undefined;
    const runTime = key === undefined || (typeof key === 'object' && key.kind === 'sym');
    const sym = typeof key === 'object' && key.kind === 'sym' ? key.id : -1;
    if (step.kind !== 'append' && runTime) child.entries.add(sym);
    child.add(write, from + 1, perPass || (sym !== -1 && sym === write.perPass?.sym));
  }

  private childFor(step: OutStep): OutNode {
    switch (step.kind) {
      case 'append': {
        const element = new OutNode();
        this.appended.push(element);
        return element;
      }
      case 'map':
        if (step.key?.kind === 'text') return getOrAdd(this.fields, step.key.text);
        return (this.anyField ??= new OutNode());
      case 'index':
        if (typeof step.index === 'number') return getOrAdd(this.indexed, step.index);
        return (this.anyIndex ??= new OutNode());
    }
  }
}

function getOrAdd<K>(map: Map<K, OutNode>, key: K): OutNode {
  let node = map.get(key);
  if (node === undefined) {
    node = new OutNode();
    map.set(key, node);
  }
  return node;
}

/**
 * The type of what a shift leaves at `node` (the root: the shift's output, null when nothing was
 * written). `perPass`: below an element keyed by one wildcard level only, where writes made on
 * every pass of that level are there whenever the element is.
 */
export function typeOfTree(node: OutNode, perPass = false): PipeType {
  const isLeaf = node.leaves.length > 0;
  const isMap = node.fields.size > 0 || node.anyField !== undefined;
  const isList = node.indexed.size > 0 || node.anyIndex !== undefined || node.appended.length > 0;
  const kinds = [isLeaf, isMap, isList].filter(Boolean).length;
  if (kinds === 0) return NULL;
  // a value and a container at one place: which one wins depends on the order of the input's keys
  if (kinds > 1) return UNKNOWN;
  if (isLeaf) return leafType(node);
  if (isMap) return mapType(node, perPass);
  return arrayOf(itemsType(node, perPass));
}

/** The type of an element or entry reached by a run-time key. */
function typeByRunTimeKey(node: OutNode): PipeType {
  const [only] = node.entries;
  return typeOfTree(node, node.entries.size === 1 && only !== -1);
}

function leafType(node: OutNode): PipeType {
  const value = union(...node.leaves.map((l) => l.type));
  const many = node.leaves.length > 1 || node.leaves.some((l) => l.repeated);
  return many ? valueOrList(value) : value;
}

/** Shiftr's second write to a place makes a list of the values (a list already there grows). */
export function valueOrList(value: PipeType): PipeType {
  if (value.kind === 'unknown') return UNKNOWN;
  const members = value.kind === 'union' ? value.members : [value];
  const elements = members.flatMap((m) => (m.kind === 'array' ? [m.items] : []));
  return union(value, arrayOf(union(value, ...elements)));
}

function mapType(node: OutNode, perPass: boolean): PipeType {
  const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
  for (const [key, child] of node.fields) {
    // a write under a key known only at run time may land on any field
    fields[key] = {
      type: node.anyField ? UNKNOWN : typeOfTree(child, perPass),
      required: child.definite || (perPass && child.definitePerPass),
    };
  }
  return { kind: 'object', fields, open: node.anyField !== undefined };
}

function itemsType(node: OutNode, perPass: boolean): PipeType {
  const fixed = [...node.indexed.values()];
  const mixed = (node.anyIndex ? 1 : 0) + (fixed.length > 0 ? 1 : 0) + (node.appended.length > 0 ? 1 : 0);
  // writes by run-time index, by fixed index and by append may reach the same element
  if (mixed > 1) return UNKNOWN;
  if (node.appended.length > 0) return union(...node.appended.map((element) => typeOfTree(element)));
  if (node.anyIndex) return union(typeByRunTimeKey(node.anyIndex), NULL);
  const indexes = [...node.indexed.keys()].sort((a, b) => a - b);
  const gapless = indexes.every((index, i) => index === i) && fixed.every((child) => child.definite);
  const items = union(...fixed.map((child) => typeOfTree(child, perPass)));
  return gapless ? items : union(items, NULL);
}
