/**
 * The user's `output-schema` in the form OpenAI's structured outputs accept with `strict: true`,
 * and the way back. In: a JSON Schema object; out: `{ schema, strict }`.
 *
 * Strict mode wants every object closed (`additionalProperties: false`) with every property listed
 * in `required`. So an optional property is sent as required-but-nullable, and `null` values of
 * properties the user declared optional (and not nullable) are removed again by
 * `dropNullOptionals` before the reply is validated against the USER's schema. Keywords strict mode
 * rejects (minLength, uniqueItems, …) are left out of what is sent; ajv still enforces them on the
 * reply, and a violation triggers a repair round. A schema strict mode cannot express at all
 * (allOf/oneOf/not/if, free-form objects, a non-object root) is sent unchanged with `strict: false`.
 */
import type { Json, JsonObject } from '../types.js';

export interface StrictSchemaResult {
  readonly schema: JsonObject;
  /** False when the schema cannot be expressed in strict mode and is sent as written. */
  readonly strict: boolean;
}

/** Keywords OpenAI strict mode does not accept; removed from what is sent (ajv still checks them). */
const STRIPPED_KEYWORDS = new Set([
  '$schema',
  '$id',
  'default',
  'examples',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'readOnly',
  'writeOnly',
  'deprecated',
]);
/** Keywords strict mode cannot express; their presence makes the whole schema non-strict. */
const UNSUPPORTED_KEYWORDS = new Set([
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  'prefixItems',
  'additionalItems',
]);
/** Nesting limit: schemas deeper than this are sent non-strict rather than walked. */
const MAX_DEPTH = 64;

class NotStrictable extends Error {}

export function toStrictSchema(schema: JsonObject): StrictSchemaResult {
  if (schema.type !== 'object') return { schema: withoutMetaKeywords(schema), strict: false };
  try {
    return { schema: strictNode(schema, 0), strict: true };
  } catch (err) {
    if (err instanceof NotStrictable) return { schema: withoutMetaKeywords(schema), strict: false };
    throw err;
  }
}

function strictNode(node: JsonObject, depth: number): JsonObject {
  if (depth > MAX_DEPTH) throw new NotStrictable();
  const entries: Array<[string, Json]> = [];
  for (const [key, value] of Object.entries(node)) {
    if (UNSUPPORTED_KEYWORDS.has(key)) throw new NotStrictable();
    if (STRIPPED_KEYWORDS.has(key)) continue;
    if (key === 'properties' || key === 'required' || key === 'additionalProperties') continue;
    if (key === 'items') entries.push([key, strictChild(value, depth)]);
    else if (key === 'anyOf') entries.push([key, asArray(value).map((branch) => strictChild(branch, depth))]);
    else if (key === '$defs' || key === 'definitions') entries.push([key, strictMap(value, depth)]);
    else entries.push([key, value]);
  }
  if (isObjectType(node)) entries.push(...strictObjectKeywords(node, depth));
  return Object.fromEntries(entries) as JsonObject;
}

/** properties (all required, optional ones nullable) and additionalProperties false. */
function strictObjectKeywords(node: JsonObject, depth: number): Array<[string, Json]> {
  const properties = node.properties;
  if (!isPlainObject(properties)) {
    // A free-form object (any keys) cannot be expressed in strict mode.
    if (node.additionalProperties === false)
      return [
        ['properties', {}],
        ['required', []],
        ['additionalProperties', false],
      ];
    throw new NotStrictable();
  }
  const required = new Set(asArray(node.required).filter((k): k is string => typeof k === 'string'));
  const strictProperties = Object.entries(properties).map(([name, child]): [string, Json] => {
    const strictChildSchema = strictChild(child, depth);
    return [name, required.has(name) ? strictChildSchema : nullable(strictChildSchema)];
  });
  return [
    ['properties', Object.fromEntries(strictProperties) as JsonObject],
    ['required', Object.keys(properties)],
    ['additionalProperties', false],
  ];
}

function strictChild(value: Json | undefined, depth: number): Json {
  if (!isPlainObject(value)) throw new NotStrictable();
  return strictNode(value, depth + 1);
}

function strictMap(value: Json | undefined, depth: number): JsonObject {
  if (!isPlainObject(value)) throw new NotStrictable();
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictChild(v, depth)])) as JsonObject;
}

/** The schema widened to also accept null (how strict mode expresses "optional"). */
export function nullable(schema: Json): Json {
  if (!isPlainObject(schema)) return schema;
  if (allowsNull(schema)) return schema;
  const type = schema.type;
  if (typeof type === 'string' && schema.const === undefined && schema.$ref === undefined) {
    const widened: Array<[string, Json]> = Object.entries(schema).map(([k, v]) => {
      if (k === 'type') return [k, [type, 'null']];
      if (k === 'enum' && Array.isArray(v)) return [k, [...v, null]];
      return [k, v];
    });
    return Object.fromEntries(widened) as JsonObject;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** Whether a schema node itself admits null (type null, or null in enum / type list / anyOf). */
export function allowsNull(schema: JsonObject): boolean {
  const type = schema.type;
  if (type === 'null') return true;
  if (Array.isArray(type) && type.includes('null')) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null) && type === undefined) return true;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((b) => isPlainObject(b) && allowsNull(b));
  return false;
}

/**
 * Removes `null` values a strict-mode model put in properties the user's schema declares optional
 * and not nullable, following properties, items and local `$ref`s. Returns a new value; keys of
 * the model's reply are copied as data (Object.fromEntries), never assigned.
 */
export function dropNullOptionals(userSchema: JsonObject, value: Json): Json {
  return dropIn(userSchema, value, userSchema, 0);
}

function dropIn(schema: JsonObject, value: Json, root: JsonObject, depth: number): Json {
  if (depth > MAX_DEPTH) return value;
  const resolved = resolveLocalRef(schema, root);
  if (Array.isArray(value)) {
    const items = resolved.items;
    return isPlainObject(items) ? value.map((v) => dropIn(items, v, root, depth + 1)) : value;
  }
  if (!isPlainObject(value) || !isPlainObject(resolved.properties)) return value;
  const properties = resolved.properties;
  const required = new Set(asArray(resolved.required));
  const kept: Array<[string, Json]> = [];
  for (const [key, child] of Object.entries(value)) {
    const childSchema = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!isPlainObject(childSchema)) {
      kept.push([key, child]);
      continue;
    }
    const childResolved = resolveLocalRef(childSchema, root);
    if (child === null && !required.has(key) && !allowsNull(childResolved)) continue;
    kept.push([key, dropIn(childResolved, child, root, depth + 1)]);
  }
  return Object.fromEntries(kept) as JsonObject;
}

function resolveLocalRef(schema: JsonObject, root: JsonObject): JsonObject {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: Json | undefined = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isPlainObject(node) && Object.hasOwn(node, segment) ? node[segment] : undefined;
  }
  return isPlainObject(node) ? node : schema;
}

function withoutMetaKeywords(schema: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema' && k !== '$id')) as JsonObject;
}

function isObjectType(node: JsonObject): boolean {
  return node.type === 'object' || (node.type === undefined && node.properties !== undefined);
}

function isPlainObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}
