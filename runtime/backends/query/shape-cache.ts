/**
 * SQL text by query shape. The SQL a filter becomes (filter-sql.ts) depends on its structure, its
 * paths and the types of its operands, never on the string and number operands themselves, which
 * are always bound parameters. So the text is made once per shape and reused; a call of a known
 * shape only binds its own operands in the places the first call's operands went.
 *
 * How the places are found: the first time a shape is seen, the SQL is also made for a stand-in
 * filter of the same shape whose string and number operands are unique markers (same class:
 * string, safe integer, integral beyond 2^53 or other number; equal where the real ones are equal
 * within one `$in`); each bound value is then a constant, or one of the markers as itself, `String(marker)` or `JSON.stringify(marker)`.
 * The shape is kept only when this template, filled with the real operands, gives exactly the
 * text and the bound values the real filter gave: anything else (a value used in some other
 * form) is made afresh on every call, as before.
 */
import { randomInt } from 'node:crypto';
import type { Json } from '../../types.js';
import type { ParamSink } from './filter-sql.js';
import type { FieldCondition, Filter } from './filter.js';

type BoundValue = string | number | null | readonly string[];

/** One bound value of a template: fixed, or an operand (slot) in one of the forms the SQL uses. */
type Bind = { readonly constant: BoundValue } | { readonly slot: number; readonly form: 'value' | 'string' | 'json' };

interface Template<T> {
  readonly output: T;
  readonly binds: readonly Bind[];
}

const MAX_SHAPES = 500;

/** A cache of templates; `null` marks a shape that is made afresh each time. */
export type ShapeCache = Map<string, Template<unknown> | null>;

export function shapeCache(): ShapeCache {
  return new Map();
}

/**
 * `generate(filter, params)` through the cache: the same output and the same values bound into
 * `params`, in the same order, as calling it directly. `generate` must be a pure function of the
 * filter's shape and operands (and of what the caller keys the cache by).
 */
export function generateByShape<T>(
  cache: ShapeCache,
  filter: Filter,
  params: ParamSink,
  generate: (filter: Filter, params: ParamSink) => T,
): T {
  const shape = shapeOf(filter, params.bound);
  const known = cache.get(shape.key);
  if (known === null) return generate(filter, params);
  if (known !== undefined) {
    for (const bind of known.binds) params.bind(valueOf(bind, shape.operands));
    return known.output as T;
  }
  const blank = params.fork();
  const real = recording(params);
  const output = generate(filter, real.sink);
  const template = templateOf(filter, shape, blank, generate);
  const fits =
    template !== null &&
    JSON.stringify(template.output) === JSON.stringify(output) &&
    template.binds.length === real.values.length &&
    template.binds.every((bind, i) => sameBound(valueOf(bind, shape.operands), real.values[i] as BoundValue));
  if (cache.size >= MAX_SHAPES) cache.clear();
  cache.set(shape.key, fits ? template : null);
  return output;
}

/** The operands that become slots, and a key of everything else that shapes the SQL. */
interface Shape {
  readonly key: string;
  readonly operands: ReadonlyArray<string | number>;
  /** Per operand: the slot of the first equal operand in the same `$in` (markers repeat it). */
  readonly sameAs: readonly number[];
}

/** `start`: the placeholders already taken, which the numbering of the SQL text goes on from. */
function shapeOf(filter: Filter, start: number): Shape {
  const operands: Array<string | number> = [];
  const sameAs: number[] = [];
  const slot = (value: string | number, within: ReadonlyArray<readonly [Json, number]> = []): string => {
    const equal = within.find(([other]) => other === value);
    const index = operands.length;
    operands.push(value);
    sameAs.push(equal === undefined ? index : (equal[1] as number));
    const type = typeOf(value);
    return equal === undefined ? `$${type}` : `$${type}=${equal[1]}`;
  };
  const operand = (value: Json): string =>
    typeof value === 'string' || typeof value === 'number' ? slot(value) : JSON.stringify(value);
  const condition = (c: FieldCondition): string => {
    switch (c.op) {
      case 'eq':
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return `${c.op}(${operand(c.value)})`;
      case 'in': {
        const seen: Array<readonly [Json, number]> = [];
        const parts = c.values.map((value) => {
          if (typeof value !== 'string' && typeof value !== 'number') return JSON.stringify(value);
          const text = slot(value, seen);
          seen.push([value, operands.length - 1]);
          return text;
        });
        return `in(${parts.join(',')})`;
      }
      case 'not':
        return `not(${condition(c.condition)})`;
      case 'all':
        return `all(${c.conditions.map(condition).join(',')})`;
      default:
        return JSON.stringify(c);
    }
  };
  // A path joined by dots says it all: parseFilter's segments are [A-Za-z0-9_$-]+ (cheaper than JSON).
  const node = (f: Filter): string =>
    f.kind === 'field' ? `${f.path.join('.')}:${condition(f.condition)}` : `${f.kind}(${f.items.map(node).join(',')})`;
  const key = `${start}|${node(filter)}`;
  return { key, operands, sameAs };
}

/**
 * What of an operand's type the SQL may depend on: a string, a safe integer, an integral number
 * beyond 2^53 (SQLite may hold it as an integer or a real: filter-sql.ts) or any other number.
 */
const typeOf = (value: string | number): 's' | 'i' | 'b' | 'n' =>
  typeof value === 'string' ? 's' : Number.isSafeInteger(value) ? 'i' : Number.isInteger(value) ? 'b' : 'n';

/** Markers: unique per process and slot, never equal to what a caller binds besides them, of the operand's typeOf. */
const NONCE = `${randomInt(2 ** 32).toString(36)}${Date.now().toString(36)}`;
const markerOf = (operand: string | number, slot: number): string | number => {
  switch (typeOf(operand)) {
    case 's':
      return `\u0007pipec-${NONCE}-${slot}\u0007`;
    case 'i':
      return 2 ** 52 + 1_000_003 * slot + 17;
    case 'b':
      return 2 ** 60 + 2 ** 20 * (slot + 1);
    case 'n':
      return 2 ** 40 + slot + 0.5;
  }
};

function templateOf<T>(
  filter: Filter,
  shape: Shape,
  blank: ParamSink,
  generate: (filter: Filter, params: ParamSink) => T,
): Template<T> | null {
  const markers = shape.operands.map((operand, i) => markerOf(operand, shape.sameAs[i] as number));
  const forms = new Map<string | number, Bind>();
  markers.forEach((marker, i) => {
    if (shape.sameAs[i] !== i) return;
    forms.set(marker, { slot: i, form: 'value' });
    if (typeof marker === 'number') forms.set(String(marker), { slot: i, form: 'string' });
    else forms.set(JSON.stringify(marker), { slot: i, form: 'json' });
  });
  let next = 0;
  const standIn = mapOperands(filter, () => markers[next++] as string | number);
  // `blank` numbers its placeholders as the real call did: the text must come out the same.
  const record = recording(blank);
  const output = generate(standIn, record.sink);
  const binds: Bind[] = [];
  for (const value of record.values) {
    const form = (typeof value === 'string' || typeof value === 'number' ? forms.get(value) : undefined) ?? null;
    if (form !== null) binds.push(form);
    else if (mentionsMarker(value, markers)) return null;
    else binds.push({ constant: value });
  }
  return { output, binds };
}

/** A bound value that holds a marker in a form the template does not know: the shape is not kept. */
function mentionsMarker(value: BoundValue, markers: ReadonlyArray<string | number>): boolean {
  if (typeof value === 'string') return value.includes(`pipec-${NONCE}-`) || markers.some((m) => String(m) === value);
  if (typeof value === 'number') return markers.includes(value);
  if (Array.isArray(value)) return value.some((v) => typeof v === 'string' && v.includes(`pipec-${NONCE}-`));
  return false;
}

/** The filter with every string and number operand of eq/in/range replaced, in shapeOf's order. */
function mapOperands(filter: Filter, replace: () => string | number): Filter {
  const operand = (value: Json): Json => (typeof value === 'string' || typeof value === 'number' ? replace() : value);
  const condition = (c: FieldCondition): FieldCondition => {
    switch (c.op) {
      case 'eq':
        return { op: 'eq', value: operand(c.value) };
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return { op: c.op, value: operand(c.value) as string | number | boolean | null };
      case 'in':
        return { op: 'in', values: c.values.map(operand) };
      case 'not':
        return { op: 'not', condition: condition(c.condition) };
      case 'all':
        return { op: 'all', conditions: c.conditions.map(condition) };
      default:
        return c;
    }
  };
  return filter.kind === 'field'
    ? { kind: 'field', path: filter.path, condition: condition(filter.condition) }
    : { kind: filter.kind, items: filter.items.map((f) => mapOperands(f, replace)) };
}

function valueOf(bind: Bind, operands: ReadonlyArray<string | number>): BoundValue {
  if ('constant' in bind) return bind.constant;
  const operand = operands[bind.slot] as string | number;
  return bind.form === 'value' ? operand : bind.form === 'string' ? String(operand) : JSON.stringify(operand);
}

function sameBound(a: BoundValue, b: BoundValue): boolean {
  return a === b || (Array.isArray(a) && Array.isArray(b) && JSON.stringify(a) === JSON.stringify(b));
}

/** A sink passing each value on to `target` and keeping a copy of it. */
function recording(target: ParamSink): { sink: ParamSink; values: BoundValue[] } {
  const values: BoundValue[] = [];
  return {
    values,
    sink: {
      bind(value) {
        values.push(Array.isArray(value) ? [...value] : (value as BoundValue));
        return target.bind(value);
      },
      get bound() {
        return target.bound;
      },
      fork: () => target.fork(),
    },
  };
}
