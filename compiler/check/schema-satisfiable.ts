/**
 * Schemas no document can satisfy, and keywords a schema silently ignores. A JSON Schema that is
 * valid against its meta-schema may still contradict itself — a `required` property that
 * `additionalProperties: false` forbids, `minimum` above `maximum`, an empty `enum`, a `const` of
 * another type than `type`, `allOf` parts whose types share none — and then every message fails
 * validation. And ajv (strict: false) ignores a keyword it does not know, so `requried` checks
 * nothing. Each contradiction is reported at the keyword that makes it (PIPE3050); a key close to
 * a keyword of some draft is a warning with the keyword (PIPE3051).
 * In: a schema that passed its meta-schema. Out: problems with JSON pointers (worded by errors.ts).
 * Only contradictions inside one schema object (and its `allOf` parts, which hold together) are
 * read: `$ref`, `anyOf`, `oneOf`, `if` and `not` are left to run time, so nothing here guesses.
 */
import { suggest } from '../../base/diagnostics/suggest.js';
import { compileRegex } from '../../runtime/regex/index.js';
import { escapePointer } from '../ast/literal.js';
import { MAX_DEPTH, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES } from './schema-keywords.js';
import {
  boundsCross,
  constOutsideType,
  emptyEnum,
  enumOutsideType,
  requiredButForbidden,
  typesExclude,
  unknownSchemaKeyword,
  type SchemaContradiction,
} from './errors.js';

export type { SchemaContradiction };

/** Every keyword of drafts 4 to 2020-12, with OpenAPI's additions (`nullable`, `discriminator`, …). */
const KEYWORDS = [
  '$schema',
  '$id',
  'id',
  '$ref',
  '$defs',
  'definitions',
  '$comment',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
  '$vocabulary',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'prefixItems',
  'items',
  'additionalItems',
  'contains',
  'maxContains',
  'minContains',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'nullable',
  'discriminator',
  'example',
  'xml',
  'externalDocs',
];

/**
 * Keywords that only annotate: a misspelled one loses nothing a validator would check, so keys
 * close to them are not reported (they are still known keywords).
 */
const ANNOTATIONS = new Set([
  '$comment',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'example',
  'contentEncoding',
  'contentMediaType',
  'xml',
  'externalDocs',
]);
const CONSTRAINING = KEYWORDS.filter((k) => !ANNOTATIONS.has(k));

/** One subschema each, except `not`: a contradiction under `not` is no contradiction of the schema. */
const SUBSCHEMA_VALUES = SCHEMA_VALUES.filter((k) => k !== 'not');

/** Pairs of lower and upper bounds a document must fall between (`minimum` with its exclusive twin below). */
const COUNT_BOUNDS: readonly { readonly min: string; readonly max: string; readonly types: readonly string[] }[] = [
  { min: 'minLength', max: 'maxLength', types: ['string'] },
  { min: 'minItems', max: 'maxItems', types: ['array'] },
  { min: 'minProperties', max: 'maxProperties', types: ['object'] },
];

type Schema = Readonly<Record<string, unknown>>;

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The contradictions and misspelled keywords of a schema, each once. */
export function schemaContradictions(schema: unknown): SchemaContradiction[] {
  const problems = new Map<string, SchemaContradiction>();
  const referenced = localRefs(schema);
  walk(schema, '', 0, (p) => {
    const key = `${p.code}${p.pointer}`;
    // A key a `$ref` points into (`defs` holding subschemas) is used, whatever its name.
    const used = p.onKey === true && referenced.some((ref) => ref === p.pointer || ref.startsWith(`${p.pointer}/`));
    if (!problems.has(key) && !used) problems.set(key, p);
  });
  return [...problems.values()];
}

/** The pointer of a local `$ref`, percent-decoded when it decodes (a malformed escape stays as written). */
function pointerOf(ref: string): string {
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    return ref.slice(1);
  }
}

/** The JSON pointers of every local `$ref` in the document (`#/defs/Item` → `/defs/Item`). */
function localRefs(schema: unknown): string[] {
  const refs: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    const ref = record['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/')) refs.push(pointerOf(ref));
    for (const key of Object.keys(record)) visit(record[key], depth + 1);
  };
  visit(schema, 0);
  return refs;
}

function walk(schema: unknown, pointer: string, depth: number, report: (p: SchemaContradiction) => void): void {
  if (!isSchema(schema) || depth > MAX_DEPTH) return;
  checkKeywords(schema, pointer, report);
  checkObject(schema, pointer, report);
  for (const keyword of SCHEMA_MAPS) {
    const map = schema[keyword];
    if (isSchema(map))
      for (const key of Object.keys(map))
        walk(map[key], `${pointer}/${keyword}/${escapePointer(key)}`, depth + 1, report);
  }
  for (const keyword of SUBSCHEMA_VALUES) walk(schema[keyword], `${pointer}/${keyword}`, depth + 1, report);
  for (const keyword of SCHEMA_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((item, i) => walk(item, `${pointer}/${keyword}/${i}`, depth + 1, report));
  }
  const dependencies = schema['dependencies'];
  if (isSchema(dependencies))
    for (const key of Object.keys(dependencies))
      walk(dependencies[key], `${pointer}/dependencies/${escapePointer(key)}`, depth + 1, report);
}

/**
 * A key that is no keyword but close to one that constrains (`requried`, `maxlength`): the schema
 * ignores it, so it accepts what the author meant to reject.
 */
function checkKeywords(schema: Schema, pointer: string, report: (p: SchemaContradiction) => void): void {
  for (const key of Object.keys(schema)) {
    if (KEYWORDS.includes(key) || key.startsWith('x-')) continue;
    const keyword = suggest(key, CONSTRAINING);
    if (keyword !== undefined) report(unknownSchemaKeyword(key, keyword, `${pointer}/${escapePointer(key)}`));
  }
}

/** The contradictions of one schema object with its `allOf` parts (every one holds on the same document). */
function checkObject(schema: Schema, pointer: string, report: (p: SchemaContradiction) => void): void {
  const parts = withAllOf(schema, pointer);
  const types = ownTypes(schema);
  checkTypes(parts, report);
  checkRequired(parts, report);
  const allows = (kinds: readonly string[]): boolean => types === undefined || kinds.some((t) => types.has(t));
  if (allows(['number', 'integer'])) checkNumberBounds(schema, pointer, integerOnly(schema), report);
  for (const bound of COUNT_BOUNDS) {
    const min = schema[bound.min];
    const max = schema[bound.max];
    if (typeof min === 'number' && typeof max === 'number' && min > max && allows(bound.types))
      report(boundsCross(bound.min, min, bound.max, max, `${pointer}/${bound.min}`));
  }
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length === 0) report(emptyEnum(`${pointer}/enum`));
  if (types !== undefined && Object.hasOwn(schema, 'const') && !types.has(jsonType(schema['const'])))
    report(constOutsideType(schema['const'], writtenTypes(schema), `${pointer}/const`));
  if (
    types !== undefined &&
    Array.isArray(enumValues) &&
    enumValues.length > 0 &&
    enumValues.every((v) => !types.has(jsonType(v)))
  )
    report(enumOutsideType(writtenTypes(schema), `${pointer}/enum`));
}

/** The schema and its `allOf` parts, nested ones too (not through `$ref`), with their pointers. */
function withAllOf(schema: Schema, pointer: string, depth = 0): { schema: Schema; pointer: string }[] {
  const out = [{ schema, pointer }];
  const allOf = schema['allOf'];
  if (!Array.isArray(allOf) || depth > MAX_DEPTH) return out;
  allOf.forEach((part, i) => {
    if (isSchema(part)) out.push(...withAllOf(part, `${pointer}/allOf/${i}`, depth + 1));
  });
  return out;
}

/**
 * The JSON types a schema's `type` allows (an integer is a number, so `number` allows `integer`);
 * undefined without a `type`.
 */
function ownTypes(schema: Schema): Set<string> | undefined {
  const names = writtenTypes(schema);
  if (names.length === 0) return undefined;
  const types = new Set<string>(names);
  if (types.has('number')) types.add('integer');
  return types;
}

/** The type names as `type` writes them (one or a list). */
function writtenTypes(schema: Schema): string[] {
  const type = schema['type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t) => typeof t === 'string') : [];
}

/** The type of a JSON value as `type` names it (`integer` for whole numbers). */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `type` of the schema and of its `allOf` parts: reported at the first part that leaves no type. */
function checkTypes(parts: readonly { schema: Schema; pointer: string }[], report: (p: SchemaContradiction) => void) {
  let allowed: Set<string> | undefined;
  let first: { readonly names: string[]; readonly pointer: string } | undefined;
  for (const part of parts) {
    const types = ownTypes(part.schema);
    if (types === undefined) continue;
    if (allowed === undefined || first === undefined) {
      allowed = types;
      first = { names: writtenTypes(part.schema), pointer: `${part.pointer}/type` };
      continue;
    }
    const shared = new Set([...types].filter((t) => allowed?.has(t)));
    if (shared.size === 0) {
      report(typesExclude(first.names, writtenTypes(part.schema), first.pointer, `${part.pointer}/type`));
      return;
    }
    allowed = shared;
  }
}

/**
 * A property required by the schema or an `allOf` part that a part with `additionalProperties:
 * false` does not allow: neither in its `properties` nor matched by its `patternProperties`.
 */
function checkRequired(
  parts: readonly { schema: Schema; pointer: string }[],
  report: (p: SchemaContradiction) => void,
) {
  const closed = parts.filter((p) => p.schema['additionalProperties'] === false && allowsObjects(p.schema));
  if (closed.length === 0) return;
  for (const part of parts) {
    const required = part.schema['required'];
    if (!Array.isArray(required)) continue;
    required.forEach((name, i) => {
      if (typeof name !== 'string') return;
      const forbidding = closed.find((c) => !allowsProperty(c.schema, name));
      if (forbidding)
        report(
          requiredButForbidden(
            name,
            Object.keys(isSchema(forbidding.schema['properties']) ? forbidding.schema['properties'] : {}),
            `${part.pointer}/required/${i}`,
            `${forbidding.pointer}/additionalProperties`,
          ),
        );
    });
  }
}

/** `required` binds objects only: a schema that allows other types is satisfied by them. */
function allowsObjects(schema: Schema): boolean {
  const types = ownTypes(schema);
  return types === undefined || types.has('object');
}

function allowsProperty(schema: Schema, name: string): boolean {
  const properties = schema['properties'];
  if (isSchema(properties) && Object.hasOwn(properties, name)) return true;
  const patterns = schema['patternProperties'];
  if (!isSchema(patterns)) return false;
  return Object.keys(patterns).some((pattern) => {
    try {
      return compileRegex(pattern, 'ecmascript').test(name);
    } catch {
      return true; // a pattern the validators cannot run is reported on its own (PIPE5505)
    }
  });
}

/** `minimum` / `exclusiveMinimum` against `maximum` / `exclusiveMaximum` (draft-04's boolean forms too). */
function checkNumberBounds(
  schema: Schema,
  pointer: string,
  integers: boolean,
  report: (p: SchemaContradiction) => void,
): void {
  const lower = bound(schema, 'minimum', 'exclusiveMinimum');
  const upper = bound(schema, 'maximum', 'exclusiveMaximum');
  if (lower === undefined || upper === undefined) return;
  const empty = integers
    ? smallestInteger(lower) > largestInteger(upper)
    : lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive));
  if (empty)
    report(
      boundsCross(lower.keyword, lower.value, upper.keyword, upper.value, `${pointer}/${lower.keyword}`, integers),
    );
}

/** `type: "integer"` alone (with `null` at most): only whole numbers fall between the bounds. */
function integerOnly(schema: Schema): boolean {
  const written = writtenTypes(schema).filter((t) => t !== 'null');
  return written.length > 0 && written.every((t) => t === 'integer');
}

function smallestInteger(lower: { value: number; exclusive: boolean }): number {
  const ceiling = Math.ceil(lower.value);
  return lower.exclusive && ceiling === lower.value ? ceiling + 1 : ceiling;
}

function largestInteger(upper: { value: number; exclusive: boolean }): number {
  const floor = Math.floor(upper.value);
  return upper.exclusive && floor === upper.value ? floor - 1 : floor;
}

function bound(
  schema: Schema,
  inclusive: string,
  exclusive: string,
): { value: number; exclusive: boolean; keyword: string } | undefined {
  const plain = schema[inclusive];
  const strict = schema[exclusive];
  if (typeof strict === 'number') {
    // draft-06+: both may be given; the tighter one counts.
    if (typeof plain === 'number' && (inclusive === 'minimum' ? plain > strict : plain < strict))
      return { value: plain, exclusive: false, keyword: inclusive };
    return { value: strict, exclusive: true, keyword: exclusive };
  }
  if (typeof plain !== 'number') return undefined;
  return { value: plain, exclusive: strict === true, keyword: inclusive };
}
