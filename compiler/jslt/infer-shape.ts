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
import type { Expr, LetBinding } from './ast.js';
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

/** The output type of `query` on an input of type `input` (`unknown` when it does not parse). */
export function inferJsltShape(query: string, input: PipeType): PipeType {
  const parsed = parseJslt(query);
  if (!parsed.program || parsed.program.body === undefined || parsed.program.imports.length > 0) return UNKNOWN;
  const functions = new Set(parsed.program.functions.map((f) => f.name));
  const typer = new Typer(functions);
  const env = typer.lets(parsed.program.lets, input, new Map());
  return typer.type(parsed.program.body, input, env);
}

class Typer {
  constructor(private readonly functions: ReadonlySet<string>) {}

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
        return keyOf(e.target ? this.type(e.target, dot, env) : dot, e.key);
      case 'index':
        return indexOf(e.target ? this.type(e.target, dot, env) : dot);
      case 'slice':
        return sliceOf(e.target ? this.type(e.target, dot, env) : dot);
      case 'call':
        return this.call(e, dot, env);
      case 'binary':
        return this.binary(e, dot, env);
      case 'if': {
        const then = this.type(e.then, dot, this.lets(e.thenLets, dot, env));
        const otherwise = e.else ? this.type(e.else, dot, this.lets(e.elseLets, dot, env)) : NULL;
        return union(then, otherwise);
      }
      case 'array':
        return arrayOf(e.items.length === 0 ? UNKNOWN : union(...e.items.map((i) => this.type(i, dot, env))));
      case 'arrayFor': {
        const element = elementOf(this.type(e.sequence, dot, env));
        const body = this.type(e.body, element, this.lets(e.lets, element, env));
        return orNull(arrayOf(body));
      }
      case 'object':
        return this.object(e, dot, env);
      case 'objectFor':
        return orNull(OPEN_OBJECT);
    }
  }

  private call(e: Extract<Expr, { kind: 'call' }>, dot: PipeType, env: Env): PipeType {
    if (e.name === 'fallback') return union(...e.args.map((a) => this.type(a, dot, env)));
    if (this.functions.has(e.name) || e.name.includes(':')) return UNKNOWN;
    return BUILTIN_TYPES.get(e.name) ?? UNKNOWN;
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>, dot: PipeType, env: Env): PipeType {
    switch (e.op) {
      case '|':
        return this.type(e.right, this.type(e.left, dot, env), env);
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
        return plusOf(this.type(e.left, dot, env), this.type(e.right, dot, env));
      default: {
        const left = this.type(e.left, dot, env);
        const right = this.type(e.right, dot, env);
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
