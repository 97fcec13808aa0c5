/**
 * The output shape of a JSLT query, inferred at build time from the query and the shape of its
 * input. Object constructors give objects whose static keys are known (a key whose value may be
 * null, `[]` or `{}` is optional: JSLT leaves such keys out); `.x` reads the input shape; literals,
 * operators and the built-in functions of known result type (`string`, `lowercase`, `size`, `now`,
 * `is-string`…) are typed; `let`, `if`/`else`, `[for …]` and `|` follow their parts. Everything else
 * (user functions, dynamic keys, `* : .` matchers, `{for …}`) is open or `unknown`.
 *
 * Example: `{ "id": .id, "n": size(.items), "tags": [for (.tags) lowercase(.)] }` on
 * `{ id: string, items: array, tags: array of string }` gives
 * `{ id: string, n: integer, tags?: array of (string or null) }` (closed).
 */
import type { Expr, LetBinding, Range } from './ast.js';
import { parseJslt } from './parser.js';
import {
  arrayOf,
  BOOLEAN,
  INTEGER,
  NULL,
  NUMBER,
  STRING,
  UNKNOWN,
  type FieldType,
  type PipeType,
} from '../types/pipe-type.js';
import { union, withoutNull } from '../types/type-ops.js';

type Env = ReadonlyMap<string, PipeType>;

const OPEN_OBJECT: PipeType = { kind: 'object', fields: {}, open: true };
const orNull = (t: PipeType): PipeType => union(t, NULL);

/** Result types of the built-in functions (null where a null argument gives null). */
const BUILTIN_TYPES: ReadonlyMap<string, PipeType> = new Map([
  ['contains', BOOLEAN],
  ['is-number', BOOLEAN],
  ['is-integer', BOOLEAN],
  ['is-decimal', BOOLEAN],
  ['is-string', BOOLEAN],
  ['is-boolean', BOOLEAN],
  ['is-object', BOOLEAN],
  ['is-array', BOOLEAN],
  ['boolean', BOOLEAN],
  ['not', BOOLEAN],
  ['test', orNull(BOOLEAN)],
  ['starts-with', orNull(BOOLEAN)],
  ['ends-with', orNull(BOOLEAN)],
  ['all', orNull(BOOLEAN)],
  ['any', orNull(BOOLEAN)],
  ['string', orNull(STRING)],
  ['lowercase', orNull(STRING)],
  ['uppercase', orNull(STRING)],
  ['join', orNull(STRING)],
  ['replace', orNull(STRING)],
  ['trim', orNull(STRING)],
  ['to-json', STRING],
  ['uuid', STRING],
  ['format-time', orNull(STRING)],
  ['number', orNull(NUMBER)],
  ['random', NUMBER],
  ['sum', orNull(NUMBER)],
  ['mod', orNull(NUMBER)],
  ['now', NUMBER],
  ['parse-time', orNull(NUMBER)],
  ['round', orNull(INTEGER)],
  ['floor', orNull(INTEGER)],
  ['ceiling', orNull(INTEGER)],
  ['size', orNull(INTEGER)],
  ['hash-int', orNull(INTEGER)],
  ['index-of', orNull(INTEGER)],
  ['split', orNull(arrayOf(STRING))],
  ['capture', orNull(OPEN_OBJECT)],
  ['parse-url', orNull(OPEN_OBJECT)],
]);

/** A key read that always gives null: the value there is a closed object without that field. */
export interface AbsentRead extends Range {
  readonly key: string;
  /** The fields the closed object has. */
  readonly fields: readonly string[];
}

export interface InferredJslt {
  readonly type: PipeType;
  readonly absentReads: readonly AbsentRead[];
}

/** The output type of `query` on an input of type `input` (`unknown` when it does not parse). */
export function inferJsltShape(query: string, input: PipeType): PipeType {
  return inferJslt(query, input).type;
}

/** The output type, and the reads of fields the shape says are never there (offsets into `query`). */
export function inferJslt(query: string, input: PipeType): InferredJslt {
  const parsed = parseJslt(query);
  if (!parsed.program || parsed.program.imports.length > 0) return { type: UNKNOWN, absentReads: [] };
  const functions = new Set(parsed.program.functions.map((f) => f.name));
  const typer = new Typer(functions, query);
  const env = typer.lets(parsed.program.lets, input, new Map());
  const type = parsed.program.body === undefined ? UNKNOWN : typer.type(parsed.program.body, input, env);
  return { type, absentReads: typer.absentReads };
}

class Typer {
  readonly absentReads: AbsentRead[] = [];

  constructor(
    private readonly functions: ReadonlySet<string>,
    private readonly source: string,
  ) {}

  /** `.key` of a value of type `t`, noting a read that always gives null. */
  private read(t: PipeType, e: Extract<Expr, { kind: 'key' }>): PipeType {
    const fields = absentFrom(t, e.key);
    if (fields !== undefined) {
      // point at the key itself when it is written plainly at the end of the read
      const plain = this.source.slice(e.end - e.key.length, e.end) === e.key;
      const at = plain ? { start: e.end - e.key.length, end: e.end } : { start: e.start, end: e.end };
      if (!this.absentReads.some((r) => r.start === at.start)) this.absentReads.push({ ...at, key: e.key, fields });
    }
    return keyOf(t, e.key);
  }

  lets(lets: readonly LetBinding[], dot: PipeType, env: Env): Env {
    const out = new Map(env);
    for (const binding of lets) out.set(binding.name, this.type(binding.value, dot, out));
    return out;
  }

  type(e: Expr, dot: PipeType, env: Env): PipeType {
    switch (e.kind) {
      case 'literal':
        return e.value === null ? NULL : typeof e.value === 'boolean' ? BOOLEAN : STRING;
      case 'number':
        return e.decimal ? NUMBER : INTEGER;
      case 'dot':
        return dot;
      case 'variable':
        return env.get(e.name) ?? UNKNOWN;
      case 'key':
        return this.read(e.target ? this.type(e.target, dot, env) : dot, e);
      case 'index':
        return indexOf(e.target ? this.type(e.target, dot, env) : dot);
      case 'slice':
        return sliceOf(e.target ? this.type(e.target, dot, env) : dot);
      case 'call':
        return this.call(e, dot, env);
      case 'binary':
        return this.binary(e, dot, env);
      case 'if': {
        this.type(e.condition, dot, env);
        const then = this.type(e.then, dot, this.lets(e.thenLets, dot, env));
        const otherwise = e.else ? this.type(e.else, dot, this.lets(e.elseLets, dot, env)) : NULL;
        return union(then, otherwise);
      }
      case 'array':
        return arrayOf(e.items.length === 0 ? UNKNOWN : union(...e.items.map((i) => this.type(i, dot, env))));
      case 'arrayFor': {
        const element = elementOf(this.type(e.sequence, dot, env));
        const inner = this.lets(e.lets, element, env);
        if (e.filter) this.type(e.filter, element, inner);
        return orNull(arrayOf(this.type(e.body, element, inner)));
      }
      case 'object':
        return this.object(e, dot, env);
      case 'objectFor': {
        const element = elementOf(this.type(e.sequence, dot, env));
        const inner = this.lets(e.lets, element, env);
        for (const part of [e.key, e.value, ...(e.filter ? [e.filter] : [])]) this.type(part, element, inner);
        return orNull(OPEN_OBJECT);
      }
    }
  }

  private call(e: Extract<Expr, { kind: 'call' }>, dot: PipeType, env: Env): PipeType {
    // every argument is typed, so that reads inside calls are seen
    const args = e.args.map((a) => this.type(a, dot, env));
    if (e.name === 'fallback') return union(...args);
    if (this.functions.has(e.name) || e.name.includes(':')) return UNKNOWN;
    return BUILTIN_TYPES.get(e.name) ?? UNKNOWN;
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>, dot: PipeType, env: Env): PipeType {
    if (e.op === '|') return this.type(e.right, this.type(e.left, dot, env), env);
    const left = this.type(e.left, dot, env);
    const right = this.type(e.right, dot, env);
    switch (e.op) {
      case 'and':
      case 'or':
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return BOOLEAN;
      case '+':
        return plusOf(left, right);
      default: {
        const integers = isInteger(left) && isInteger(right) && e.op !== '/';
        return orNull(integers ? INTEGER : NUMBER);
      }
    }
  }

  private object(e: Extract<Expr, { kind: 'object' }>, dot: PipeType, env: Env): PipeType {
    const inner = this.lets(e.lets, dot, env);
    const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
    let open = e.matcher !== undefined;
    for (const pair of e.pairs) {
      if (pair.key.kind !== 'literal' || typeof pair.key.value !== 'string') {
        open = true;
        continue;
      }
      const value = this.type(pair.value, dot, inner);
      // null, [] and {} values leave the key out
      fields[pair.key.value] = { type: withoutNull(value), required: !mayBeEmpty(value) };
    }
    return { kind: 'object', fields, open };
  }
}

function membersOf(t: PipeType): readonly PipeType[] {
  return t.kind === 'union' ? t.members : [t];
}

function isInteger(t: PipeType): boolean {
  return t.kind === 'number' && t.integer === true;
}

/** Whether a value of the type may be one JSLT leaves out of an object (null, `[]`, `{}`). */
function mayBeEmpty(t: PipeType): boolean {
  return membersOf(t).some(
    (m) =>
      m.kind === 'null' ||
      m.kind === 'unknown' ||
      m.kind === 'array' ||
      (m.kind === 'object' && !Object.values(m.fields).some((f) => f.required)),
  );
}

/**
 * The fields of the closed objects `t` may be, when none of them has `key` and `t` can be nothing
 * else (null aside); undefined when the read may find a value.
 */
function absentFrom(t: PipeType, key: string): readonly string[] | undefined {
  const members = membersOf(t).filter((m) => m.kind !== 'null');
  if (members.length === 0) return undefined;
  const fields: string[] = [];
  for (const m of members) {
    if (m.kind !== 'object' || m.open || Object.hasOwn(m.fields, key)) return undefined;
    fields.push(...Object.keys(m.fields));
  }
  return [...new Set(fields)].sort();
}

/** `.key` of a value of type `t`: the field (null when absent), unknown when not surely an object. */
function keyOf(t: PipeType, key: string): PipeType {
  return union(
    ...membersOf(t).map((m) => {
      if (m.kind === 'null') return NULL;
      if (m.kind !== 'object') return UNKNOWN;
      if (!Object.hasOwn(m.fields, key)) return m.open ? UNKNOWN : NULL;
      const field = m.fields[key] as FieldType;
      return field.required ? field.type : orNull(field.type);
    }),
  );
}

function indexOf(t: PipeType): PipeType {
  return union(...membersOf(t).map((m) => (m.kind === 'array' ? orNull(m.items) : m.kind === 'null' ? NULL : UNKNOWN)));
}

function sliceOf(t: PipeType): PipeType {
  return union(
    ...membersOf(t).map((m) =>
      m.kind === 'array' || m.kind === 'string'
        ? orNull(m.kind === 'string' ? STRING : m)
        : m.kind === 'null'
          ? NULL
          : UNKNOWN,
    ),
  );
}

/** What `for (seq)` gives `.` each time: list items, or `{ key, value }` pairs of an object. */
function elementOf(t: PipeType): PipeType {
  return union(
    ...membersOf(t).map((m) => {
      if (m.kind === 'array') return m.items;
      if (m.kind === 'object') {
        const values = Object.values(m.fields).map((f) => f.type);
        const value = m.open || values.length === 0 ? UNKNOWN : union(...values);
        return {
          kind: 'object',
          open: false,
          fields: { key: { type: STRING, required: true }, value: { type: value, required: true } },
        } satisfies PipeType;
      }
      return UNKNOWN;
    }),
  );
}

/** `+`: text if either side is text, lists joined, objects merged (the left's keys win), else numbers. */
function plusOf(left: PipeType, right: PipeType): PipeType {
  const results: PipeType[] = [];
  for (const l of membersOf(left)) {
    for (const r of membersOf(right)) results.push(plusPair(l, r));
  }
  return union(...results);
}

function plusPair(l: PipeType, r: PipeType): PipeType {
  if (l.kind === 'string' || r.kind === 'string') return STRING;
  if (l.kind === 'unknown' || r.kind === 'unknown') return UNKNOWN;
  if (l.kind === 'array' && r.kind === 'array') return arrayOf(union(l.items, r.items));
  if (l.kind === 'object' && r.kind === 'object') return mergeObjects(l, r);
  if ((l.kind === 'object' || l.kind === 'array') && r.kind === 'null') return l;
  if (l.kind === 'null' && (r.kind === 'object' || r.kind === 'array')) return r;
  if (l.kind === 'null' || r.kind === 'null') return NULL;
  if (l.kind === 'number' && r.kind === 'number') return isInteger(l) && isInteger(r) ? INTEGER : NUMBER;
  // anything else fails at run time
  return UNKNOWN;
}

function mergeObjects(
  left: Extract<PipeType, { kind: 'object' }>,
  right: Extract<PipeType, { kind: 'object' }>,
): PipeType {
  const fields: Record<string, FieldType> = Object.assign(Object.create(null) as object, right.fields);
  for (const [key, field] of Object.entries(left.fields)) {
    const other = Object.hasOwn(right.fields, key) ? right.fields[key] : undefined;
    fields[key] =
      field.required || other === undefined
        ? // an unlisted key of an open right side may be the left's when the left lacks it
          { type: field.required || !right.open ? field.type : UNKNOWN, required: field.required }
        : { type: union(field.type, other.type), required: other.required };
  }
  if (left.open)
    for (const key of Object.keys(right.fields))
      if (!Object.hasOwn(left.fields, key))
        fields[key] = { type: UNKNOWN, required: (right.fields[key] as FieldType).required };
  return { kind: 'object', fields, open: left.open || right.open };
}
