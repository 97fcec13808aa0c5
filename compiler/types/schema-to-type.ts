/**
 * JSON Schema (drafts 4 to 2020-12, the subset that shapes data) → PipeType: `type` (one or a
 * list), `properties` / `required`, `additionalProperties` (objects are closed ONLY when it is
 * `false`, or `unevaluatedProperties: false`), `items` / `prefixItems`, `enum`, `const`,
 * `anyOf` / `oneOf` (union), `allOf` (merge), `nullable` (OpenAPI), and `$ref` into the same
 * document (`#/$defs/…`, `#/definitions/…`, any local JSON pointer). Unresolvable or recursive
 * references become `unknown`, never an error: this function describes shapes, ajv validates.
 *
 * Example: { type: "object", additionalProperties: false, required: ["total"],
 *            properties: { total: { type: "number" } } }
 *   → { kind: 'object', open: false, fields: { total: { type: number, required: true } } }
 */
import { BOOLEAN, INTEGER, NULL, NUMBER, STRING, UNKNOWN, type FieldType, type PipeType } from './pipe-type.js';
import { typeOfValue, union, widen } from './type-ops.js';

export interface SchemaToTypeOptions {
  /** Document that `$ref: "#/…"` points into; defaults to the schema itself. */
  readonly root?: unknown;
}

/** Deepest schema nesting followed (guards hostile or generated schemas). */
const MAX_DEPTH = 64;

type Schema = Readonly<Record<string, unknown>>;

function isSchemaObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function own(schema: Schema, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(schema, key) ? schema[key] : undefined;
}

/** Resolves a local JSON pointer (`#/$defs/Item`, with `~0`/`~1` escapes). */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined; // a malformed %-escape: no type (the schema check reports the $ref)
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchemaObject(current) && !Array.isArray(current)) return undefined;
    current = Object.prototype.hasOwnProperty.call(current, key)
      ? (current as Record<string, unknown>)[key]
      : undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

class Converter {
  private readonly resolving = new Set<string>();

  constructor(private readonly root: unknown) {}

  convert(schema: unknown, depth: number): PipeType {
    if (depth > MAX_DEPTH || !isSchemaObject(schema)) return UNKNOWN;
    const ref = own(schema, '$ref');
    if (typeof ref === 'string') return this.reference(ref, depth);
    const nullable = own(schema, 'nullable') === true;
    const base = this.shape(schema, depth);
    return nullable ? union(base, NULL) : base;
  }

  private reference(ref: string, depth: number): PipeType {
    if (this.resolving.has(ref)) return UNKNOWN; // recursive shape: stop here
    const target = resolvePointer(this.root, ref);
    if (target === undefined) return UNKNOWN;
    this.resolving.add(ref);
    try {
      return this.convert(target, depth + 1);
    } finally {
      this.resolving.delete(ref);
    }
  }

  private shape(schema: Schema, depth: number): PipeType {
    const constant = own(schema, 'const');
    if (typeof constant === 'string') return { kind: 'string', enum: [constant], declared: true };
    if (constant !== undefined) return typeOfValue(constant);
    const enumValues = own(schema, 'enum');
    if (Array.isArray(enumValues) && enumValues.length > 0) return this.enumType(enumValues);
    const alternatives = [own(schema, 'anyOf'), own(schema, 'oneOf')].find(Array.isArray) as unknown[] | undefined;
    if (alternatives && alternatives.length > 0) return union(...alternatives.map((s) => this.convert(s, depth + 1)));
    const allOf = own(schema, 'allOf');
    if (Array.isArray(allOf) && allOf.length > 0) {
      const { allOf: _ignored, ...rest } = schema;
      const parts = [...allOf, ...(Object.keys(rest).length > 0 ? [rest] : [])].map((s) => this.convert(s, depth + 1));
      return mergeAll(parts);
    }
    const type = own(schema, 'type');
    if (Array.isArray(type)) return union(...type.map((t) => this.ofTypeName(String(t), schema, depth)));
    if (typeof type === 'string') return this.ofTypeName(type, schema, depth);
    if (
      own(schema, 'properties') !== undefined ||
      own(schema, 'additionalProperties') === false ||
      own(schema, 'required') !== undefined
    )
      return this.objectType(schema, depth);
    if (own(schema, 'items') !== undefined || own(schema, 'prefixItems') !== undefined)
      return this.arrayType(schema, depth);
    return UNKNOWN;
  }

  private enumType(values: readonly unknown[]): PipeType {
    if (values.every((v) => typeof v === 'string')) return { kind: 'string', enum: values as string[], declared: true };
    return union(...values.map((v) => (typeof v === 'string' ? typeOfValue(v) : widen(typeOfValue(v)))));
  }

  private ofTypeName(name: string, schema: Schema, depth: number): PipeType {
    switch (name) {
      case 'string':
        return STRING;
      case 'number':
        return NUMBER;
      case 'integer':
        return INTEGER;
      case 'boolean':
        return BOOLEAN;
      case 'null':
        return NULL;
      case 'object':
        return this.objectType(schema, depth);
      case 'array':
        return this.arrayType(schema, depth);
      default:
        return UNKNOWN;
    }
  }

  private objectType(schema: Schema, depth: number): PipeType {
    const properties = own(schema, 'properties');
    const required = own(schema, 'required');
    const requiredNames = new Set(
      Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [],
    );
    const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
    if (isSchemaObject(properties)) {
      for (const key of Object.keys(properties)) {
        fields[key] = { type: this.convert(properties[key], depth + 1), required: requiredNames.has(key) };
      }
    }
    // A required name the properties do not describe is a field all the same.
    for (const name of requiredNames)
      if (!Object.hasOwn(fields, name)) fields[name] = { type: UNKNOWN, required: true };
    const closed = own(schema, 'additionalProperties') === false || own(schema, 'unevaluatedProperties') === false;
    if (closed) return { kind: 'object', fields, open: false };
    return namesFieldsElsewhere(schema)
      ? { kind: 'object', fields, open: true, freeNames: true }
      : { kind: 'object', fields, open: true };
  }

  private arrayType(schema: Schema, depth: number): PipeType {
    const items = own(schema, 'items');
    const prefix = own(schema, 'prefixItems');
    const tuple = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : undefined;
    if (tuple) {
      const rest = Array.isArray(items) ? own(schema, 'additionalItems') : items;
      const members = tuple.map((s) => this.convert(s, depth + 1));
      if (rest !== undefined && rest !== false) members.push(this.convert(rest, depth + 1));
      return { kind: 'array', items: members.length === 0 ? UNKNOWN : union(...members) };
    }
    return { kind: 'array', items: items === undefined ? UNKNOWN : this.convert(items, depth + 1) };
  }
}

/**
 * An open object schema whose other fields are described elsewhere (a map's `additionalProperties`
 * schema, `patternProperties`, `propertyNames`, fields of an `if`/`then`/`else` or of
 * `dependentSchemas`): a name one slip away from a property may be one of those (near-miss.ts).
 */
function namesFieldsElsewhere(schema: Schema): boolean {
  if (isSchemaObject(own(schema, 'additionalProperties'))) return true;
  if (isSchemaObject(own(schema, 'unevaluatedProperties'))) return true;
  return ['patternProperties', 'propertyNames', 'if', 'then', 'else', 'dependentSchemas', 'dependencies', 'not'].some(
    (key) => own(schema, key) !== undefined,
  );
}

/** allOf: objects merge their fields (a field is required if any part requires it); otherwise the most specific part wins. */
function mergeAll(parts: readonly PipeType[]): PipeType {
  const known = parts.filter((p) => p.kind !== 'unknown');
  if (known.length === 0) return UNKNOWN;
  if (!known.every((p) => p.kind === 'object')) return known[0] as PipeType;
  const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
  let open = true;
  for (const part of known) {
    if (part.kind !== 'object') continue;
    // A part with additionalProperties:false closes the merge only when it alone names every field.
    open = open && part.open;
    for (const [key, field] of Object.entries(part.fields)) {
      const prev = fields[key];
      fields[key] = prev
        ? { type: prev.type.kind === 'unknown' ? field.type : prev.type, required: prev.required || field.required }
        : field;
    }
  }
  const names = Object.keys(fields);
  const closedPartCoversAll = known.some(
    (p) => p.kind === 'object' && !p.open && names.every((n) => Object.prototype.hasOwnProperty.call(p.fields, n)),
  );
  const mergedOpen = open || !closedPartCoversAll;
  const freeNames = mergedOpen && known.some((p) => p.kind === 'object' && p.freeNames === true);
  return { kind: 'object', fields, open: mergedOpen, ...(freeNames ? { freeNames } : {}) };
}

/**
 * Converts a JSON Schema to the shape it describes.
 * @example schemaToType({ type: "array", items: { type: "string" } }) // array of string
 */
export function schemaToType(schema: unknown, options: SchemaToTypeOptions = {}): PipeType {
  return new Converter(options.root ?? schema).convert(schema, 0);
}
