/**
 * Rules between parameters, written in each schema.json as standard JSON Schema and checked
 * against the literal parameters of a step or trigger (header words included: `csv parse`,
 * `redis get`, `store orders.find`):
 *
 * - `if` / `then` / `else` (alone, or several in an `allOf`): a case. `then: { required: [rows],
 *   properties: { file: false } }` after `if: { required: [operation], properties: { operation:
 *   { const: generate } } }` says `csv generate` needs `rows` and does not take `file`; `not:
 *   { required: [file] }` says the same as `file: false`.
 * - `oneOf` / `anyOf` whose alternatives only require parameters: exactly one (at least one) of a group.
 * - `dependentRequired` (and draft-07 `dependencies` with lists): a parameter that needs another.
 *
 * A case whose condition reads a value known only at run time (`{{ }}`, env(), a header word with
 * braces) is neither applied nor its `else`: nothing is reported that the value could make false.
 * These keywords are taken out of the schema ajv checks (`withoutRules`), so each rule is reported
 * once, here, with the case named (`csv generate`, `auth` of trigger `http` when `type` is `api-key`)
 * and the cases that do take a refused parameter.
 */
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import type { JsonSchema } from '../connectors/connector-registry.js';
import { DYNAMIC } from '../ast/literal.js';
import {
  dependentParameterMissing,
  missingCaseParameter,
  moreThanOneOf,
  needsOneOf,
  notTakenParameter,
} from './errors.js';

export interface RulesInput {
  /** The parameter schema (schema.json `params`). */
  readonly params: JsonSchema;
  /** The parameters as JSON; values known only at run time are `DYNAMIC`. */
  readonly json: unknown;
  /** Top-level parameters written as header words → the word as written (`parse` of `csv parse`, `orders.find` of `store orders.find`). */
  readonly headerWords: ReadonlyMap<string, string>;
  /** `connector` or `trigger`, and its name (its span is where a missing top-level parameter is reported). */
  readonly subject: { readonly what: string; readonly name: string; readonly nameSpan: Span };
  /** Where the parameter at a JSON pointer is written: its key, or its header word. */
  readonly keySpan: (pointer: string) => Span;
  /** Does a literal value hold under a schema (ajv)? */
  readonly holds: (schema: JsonSchema, value: unknown) => boolean;
  /** The diagnostics of a value under a case's own schema for it (`then: { properties: { fields: { type: object } } }`). */
  readonly valueProblems: (schema: JsonSchema, pointer: string) => Diagnostic[];
}

/** true, false, or undefined when it depends on a value known only at run time. */
type Truth = boolean | undefined;

/** Where a case applies, for messages. */
interface Case {
  /** `\`csv generate\``, `connector \`agent\` when …`. */
  readonly owner: string;
  /** The parameter and value of a case on one value (`operation` is `generate`). */
  readonly on?: { readonly param: string; readonly value: unknown };
  /** The cases beside it (an `allOf`'s), which may take what this one refuses. */
  readonly siblings?: readonly JsonSchema[];
  /** The one parameter the case's condition reads (`model` of an agent): what makes a missing one needed. */
  readonly because?: string;
}

/** The object being checked: its schema, pointer and value. */
interface Place {
  readonly schema: JsonSchema;
  readonly pointer: string;
  readonly value: Readonly<Record<string, unknown>>;
}

const RULE_KEYWORDS = ['if', 'oneOf', 'anyOf', 'allOf', 'not', 'dependentRequired', 'dependencies'];

/** Whether a parameter schema holds any rule at all, found once per schema (most connectors have none). */
const rulesBySchema = new WeakMap<object, boolean>();

function hasRules(params: JsonSchema): boolean {
  const known = rulesBySchema.get(params);
  if (known !== undefined) return known;
  const visit = (node: unknown, depth: number): boolean => {
    if (depth > 64 || node === null || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some((child) => visit(child, depth + 1));
    const record = node as Record<string, unknown>;
    if (RULE_KEYWORDS.some((k) => Object.hasOwn(record, k))) return true;
    // `"k": false` under `properties`: a parameter no case takes.
    if (Object.values(schemaRecordLoose(record['properties'])).some((p) => (p as unknown) === false)) return true;
    return Object.values(record).some((child) => visit(child, depth + 1));
  };
  const found = visit(params, 0);
  rulesBySchema.set(params, found);
  return found;
}

export function checkParamRules(input: RulesInput): Diagnostic[] {
  if (!hasRules(input.params)) return [];
  const out: Diagnostic[] = [];
  walk(input, input.params, '', input.json, out);
  return out;
}

function walk(input: RulesInput, schema: JsonSchema, pointer: string, value: unknown, out: Diagnostic[]): void {
  if (!isPlainObject(value)) return;
  const place: Place = { schema, pointer, value };
  applyRuleKeywords(input, place, schema, ownerCase(input, pointer), out);
  const properties = schemaRecord(schema['properties']);
  for (const [key, child] of Object.entries(properties)) {
    if (!Object.hasOwn(value, key)) continue;
    const childValue = value[key];
    const childPointer = `${pointer}/${escapePointer(key)}`;
    if (Array.isArray(childValue) && isSchema(child['items'])) {
      childValue.forEach((item, i) => walk(input, child['items'] as JsonSchema, `${childPointer}/${i}`, item, out));
    } else {
      walk(input, child, childPointer, childValue, out);
    }
  }
}

/** A branch of a case (`then`, `else`, a rule of an `allOf`): its `required` and `properties` too. */
function applyBranch(input: RulesInput, place: Place, branch: unknown, at: Case, out: Diagnostic[]): void {
  if (!isSchema(branch)) return;
  for (const key of stringList(branch['required'])) {
    if (Object.hasOwn(place.value, key)) continue;
    out.push(missingCaseParameter(key, at.owner, whereMissing(input, place, at), descriptionOf(place.schema, key)));
  }
  for (const [key, rule] of Object.entries(schemaRecordLoose(branch['properties']))) {
    if (!Object.hasOwn(place.value, key)) continue;
    const pointer = `${place.pointer}/${escapePointer(key)}`;
    if (rule === false) out.push(notTaken(input, place, key, at));
    else if (isSchema(rule) && !containsDynamic(place.value[key]) && !input.holds(rule, place.value[key]))
      out.push(...input.valueProblems(rule, pointer));
  }
  applyRuleKeywords(input, place, branch, at, out);
}

/** The keywords `withoutRules` takes out of ajv's schema. */
function applyRuleKeywords(input: RulesInput, place: Place, schema: JsonSchema, at: Case, out: Diagnostic[]): void {
  const refused = schema['not'];
  if (isSchema(refused) && isPresenceOnly(refused)) {
    for (const key of singlyRequired(refused))
      if (Object.hasOwn(place.value, key)) out.push(notTaken(input, place, key, at));
    const together = stringList(refused['required']);
    if (together.length > 1 && together.every((k) => Object.hasOwn(place.value, k))) {
      const [first = '', ...rest] = together;
      for (const key of rest) out.push(moreThanOneOf(at.owner, together, key, first, spanOf(input, place, key)));
    }
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const groups = presenceGroups(schema[keyword]);
    if (groups) checkGroup(input, place, groups, keyword === 'oneOf', at, out);
  }
  const dependent = dependentLists(schema);
  for (const [given, needed] of Object.entries(dependent)) {
    if (!Object.hasOwn(place.value, given)) continue;
    for (const key of needed) {
      if (Object.hasOwn(place.value, key)) continue;
      out.push(
        dependentParameterMissing(given, key, at.owner, spanOf(input, place, given), descriptionOf(place.schema, key)),
      );
    }
  }
  if (isSchema(schema['if'])) applyCase(input, place, schema, [schema], out);
  const rules = Array.isArray(schema['allOf']) ? (schema['allOf'] as unknown[]).filter(isRule) : [];
  for (const rule of rules) {
    if (isSchema(rule['if'])) applyCase(input, place, rule, rules, out);
    else applyBranch(input, place, rule, at, out);
  }
}

/** `if`/`then`/`else`; `siblings` are the cases beside it (for the cases that take a refused parameter). */
function applyCase(
  input: RulesInput,
  place: Place,
  rule: JsonSchema,
  siblings: readonly JsonSchema[],
  out: Diagnostic[],
): void {
  const condition = rule['if'] as JsonSchema;
  const truth = holds(input, condition, place.value);
  if (truth === undefined) return;
  const branch = truth ? rule['then'] : rule['else'];
  if (branch === undefined) return;
  const at = caseOf(input, place, condition, truth);
  applyBranch(input, place, branch, { ...at, siblings }, out);
}

function checkGroup(
  input: RulesInput,
  place: Place,
  groups: readonly (readonly string[])[],
  exactlyOne: boolean,
  at: Case,
  out: Diagnostic[],
): void {
  const names = groups.flat();
  const met = groups.filter((group) => group.every((k) => Object.hasOwn(place.value, k)));
  if (met.length === 0) {
    out.push(needsOneOf(at.owner, names, whereMissing(input, place, at)));
    return;
  }
  if (!exactlyOne || met.length < 2) return;
  const present = names.filter((k) => Object.hasOwn(place.value, k));
  const first = present[0] ?? '';
  for (const key of present.slice(1)) out.push(moreThanOneOf(at.owner, names, key, first, spanOf(input, place, key)));
}

// ───────────────────────────── conditions ─────────────────────────────

/** Does `value` hold under `condition`? undefined when a value it reads is known only at run time. */
function holds(input: RulesInput, condition: unknown, value: Readonly<Record<string, unknown>>): Truth {
  if (typeof condition === 'boolean') return condition;
  if (!isSchema(condition)) return true;
  let result: Truth = true;
  const and = (truth: Truth): void => {
    if (truth === false) result = false;
    else if (truth === undefined && result !== false) result = undefined;
  };
  for (const [keyword, argument] of Object.entries(condition)) {
    switch (keyword) {
      case 'required':
        and(stringList(argument).every((k) => Object.hasOwn(value, k)));
        break;
      case 'properties':
        for (const [key, schema] of Object.entries(schemaRecordLoose(argument)))
          if (Object.hasOwn(value, key)) and(valueHolds(input, schema, value[key]));
        break;
      case 'not': {
        const inner = holds(input, argument, value);
        and(inner === undefined ? undefined : !inner);
        break;
      }
      case 'allOf':
        for (const part of listOf(argument)) and(holds(input, part, value));
        break;
      case 'anyOf':
      case 'oneOf': {
        const truths = listOf(argument).map((part) => holds(input, part, value));
        const known = truths.filter((t) => t === true).length;
        if (truths.includes(undefined)) and(keyword === 'anyOf' && known > 0 ? true : undefined);
        else and(keyword === 'anyOf' ? known > 0 : known === 1);
        break;
      }
      case 'description':
      case '$comment':
      case 'title':
        break;
      default:
        and(containsDynamic(value) ? undefined : input.holds({ [keyword]: argument }, value));
    }
  }
  return result;
}

function valueHolds(input: RulesInput, schema: unknown, value: unknown): Truth {
  if (typeof schema === 'boolean') return schema;
  if (!isSchema(schema)) return true;
  if (Object.keys(schema).length === 0) return true;
  return containsDynamic(value) ? undefined : input.holds(schema, value);
}

// ───────────────────────────── naming cases ─────────────────────────────

/** The owner of the object at `pointer`: `connector \`csv\``, or `\`auth\` of trigger \`http\``. */
function ownerCase(input: RulesInput, pointer: string): Case {
  const { what, name } = input.subject;
  return { owner: pointer === '' ? `${what} \`${name}\`` : `\`${pathOf(pointer)}\` of ${what} \`${name}\`` };
}

/** The case a condition names: one parameter's value, else the condition's `description`. */
function caseOf(input: RulesInput, place: Place, condition: JsonSchema, positive: boolean): Case {
  const named = namedCase(input, place, condition, positive);
  const because = conditionParam(condition);
  return because === undefined ? named : { ...named, because };
}

function namedCase(input: RulesInput, place: Place, condition: JsonSchema, positive: boolean): Case {
  const owner = ownerCase(input, place.pointer).owner;
  const on = valueCase(condition);
  if (on) {
    const value = `\`${String(on.value)}\``;
    const header = place.pointer === '' ? headerFor(input, on.param) : undefined;
    if (positive && header) return { owner: `\`${header(on.value)}\``, on };
    return positive
      ? { owner: `${owner} when \`${on.param}\` is ${value}`, on }
      : { owner: `${owner} when \`${on.param}\` is not ${value}` };
  }
  const description = typeof condition['description'] === 'string' ? condition['description'] : undefined;
  if (description) return { owner: `${owner} ${positive ? 'when' : 'unless'} ${description}` };
  return { owner };
}

/**
 * How a step written with header word `param` is named for another value of it: `csv generate`,
 * `store orders.update` (the value replaces its part of the word); undefined when `param` is no header word.
 */
function headerFor(input: RulesInput, param: string): ((value: unknown) => string) | undefined {
  const word = input.headerWords.get(param);
  const written =
    input.json !== null && typeof input.json === 'object' ? (input.json as Record<string, unknown>)[param] : undefined;
  if (word === undefined) return undefined;
  const prefix =
    typeof written === 'string' && word.endsWith(written) ? word.slice(0, word.length - written.length) : '';
  return (value) => `${input.subject.name} ${prefix}${String(value)}`;
}

/** `{ required: [p], properties: { p: { const: v } } }` (or a one-value `enum`): p and v. */
function valueCase(condition: JsonSchema): Case['on'] {
  const extra = Object.keys(condition).filter(
    (k) => !['required', 'properties', 'description', '$comment'].includes(k),
  );
  const properties = Object.entries(schemaRecord(condition['properties']));
  if (extra.length > 0 || properties.length !== 1) return undefined;
  const [param, schema] = properties[0] as [string, JsonSchema];
  if ('const' in schema) return { param, value: schema['const'] };
  const values = schema['enum'];
  return Array.isArray(values) && values.length === 1 ? { param, value: values[0] } : undefined;
}

/** PIPE3015 for `key`, with the cases beside this one that take it and what this one takes. */
function notTaken(input: RulesInput, place: Place, key: string, at: Case): Diagnostic {
  const span = spanOf(input, place, key);
  const siblings = at.siblings;
  if (!at.on || !siblings) return notTakenParameter(key, at.owner, span, undefined, undefined);
  const param = at.on.param;
  const refusedBy = new Map<unknown, Set<string>>();
  for (const rule of siblings) {
    const on = isSchema(rule['if']) ? valueCase(rule['if']) : undefined;
    if (on?.param !== param || !isSchema(rule['then'])) continue;
    const set = refusedBy.get(on.value) ?? new Set<string>();
    for (const k of refusedKeys(rule['then'])) set.add(k);
    refusedBy.set(on.value, set);
  }
  const declared = schemaRecord(place.schema['properties'])[param]?.['enum'];
  const values = Array.isArray(declared) ? declared : [...refusedBy.keys()];
  const takers = values.filter((v) => !refusedBy.get(v)?.has(key)).map(String);
  const specific = new Set([...refusedBy.values()].flatMap((s) => [...s]));
  const refusedHere = refusedBy.get(at.on.value) ?? new Set<string>();
  const takes = Object.keys(schemaRecord(place.schema['properties'])).filter(
    (k) => specific.has(k) && !refusedHere.has(k),
  );
  const header = place.pointer === '' ? headerFor(input, param) : undefined;
  const only =
    takers.length === 0
      ? undefined
      : header
        ? `only for ${takers.map((v) => `\`${header(v)}\``).join(', ')}`
        : `only when \`${param}\` is ${takers.map((v) => `\`${v}\``).join(' or ')}`;
  return notTakenParameter(key, at.owner, span, only, takes);
}

/** The parameters a branch rules out: `properties: { k: false }`, `not: { required: [k] }`. */
export function refusedKeys(branch: JsonSchema): string[] {
  const out = Object.entries(schemaRecordLoose(branch['properties']))
    .filter(([, rule]) => rule === false)
    .map(([key]) => key);
  const refused = branch['not'];
  if (isSchema(refused) && isPresenceOnly(refused)) out.push(...singlyRequired(refused));
  return [...new Set(out)];
}

// ───────────────────────────── the rules as text (reference pages) ─────────────────────────────

/** One rule of a schema, as the reference pages list it (scripts/connectors-doc.ts). */
export interface RuleText {
  /** The object it applies to (`auth`), empty for the parameters themselves. */
  readonly where: string;
  /** When it applies: `` `operation` is `parse` ``, a condition's description, or `always`. */
  readonly when: string;
  readonly needs: readonly string[];
  /** Alternatives (each a group of parameters) of which exactly one (`oneOf`) or at least one (`anyOf`) is given. */
  readonly oneOf: readonly (readonly string[])[];
  readonly atLeastOneOf: readonly (readonly string[])[];
  readonly refuses: readonly string[];
}

/** Every rule between parameters of a schema, at every level, in the order written. */
export function describeRules(params: JsonSchema, where = ''): RuleText[] {
  const out: RuleText[] = [];
  const add = (rule: JsonSchema, when: string, withRequired: boolean): void => {
    const text: RuleText = {
      where,
      when,
      needs: withRequired ? stringList(rule['required']) : [],
      oneOf: presenceGroups(rule['oneOf']) ?? [],
      atLeastOneOf: presenceGroups(rule['anyOf']) ?? [],
      refuses: withRequired
        ? refusedKeys(rule)
        : isSchema(rule['not']) && isPresenceOnly(rule['not'])
          ? singlyRequired(rule['not'])
          : [],
    };
    if (text.needs.length + text.oneOf.length + text.atLeastOneOf.length + text.refuses.length > 0) out.push(text);
  };
  const visit = (rule: JsonSchema, when: string, branch: boolean): void => {
    add(rule, when, branch);
    for (const [given, needed] of Object.entries(dependentLists(rule)))
      out.push({ where, when: `\`${given}\` is given`, needs: needed, oneOf: [], atLeastOneOf: [], refuses: [] });
    const cases = [rule, ...listOf(rule['allOf']).filter(isRule)];
    for (const part of cases) {
      if (part !== rule && !isSchema(part['if'])) visit(part, when, true);
      if (!isSchema(part['if'])) continue;
      const condition = conditionText(part['if']);
      if (isSchema(part['then'])) visit(part['then'], condition, true);
      if (isSchema(part['else'])) visit(part['else'], `not (${condition})`, true);
    }
  };
  visit(params, 'always', false);
  for (const [key, child] of Object.entries(schemaRecord(params['properties']))) {
    const path = where === '' ? key : `${where}.${key}`;
    out.push(...describeRules(child, path));
    if (isSchema(child['items'])) out.push(...describeRules(child['items'], `${path}[]`));
  }
  return out;
}

function conditionText(condition: JsonSchema): string {
  const on = valueCase(condition);
  if (on) return `\`${on.param}\` is \`${String(on.value)}\``;
  if (typeof condition['description'] === 'string') return condition['description'];
  return `\`${JSON.stringify(condition)}\``;
}

// ───────────────────────────── the schema ajv checks ─────────────────────────────

/**
 * The schema without the keywords checked here, at the levels `walk` checks them (the parameters,
 * the object parameters inside them, and their array items): ajv then reports the shape of each
 * value, and this file the rules between parameters. Elsewhere (`$defs`, `additionalProperties`,
 * alternatives) the schema stays whole, for ajv.
 */
export function withoutRules(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (['if', 'then', 'else', 'dependentRequired'].includes(keyword)) continue;
    if (keyword === 'dependencies' && Object.values(schemaRecordLoose(value)).every(Array.isArray)) continue;
    if (keyword === 'not' && isSchema(value) && isPresenceOnly(value)) continue;
    if ((keyword === 'oneOf' || keyword === 'anyOf') && presenceGroups(value)) continue;
    if (keyword === 'allOf' && Array.isArray(value)) {
      const kept = value.filter((part) => !isRule(part));
      if (kept.length > 0) out[keyword] = kept;
      continue;
    }
    if (keyword === 'properties' && isSchema(value)) {
      out[keyword] = Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withoutChildRules(child)]));
      continue;
    }
    out[keyword] = value;
  }
  return out;
}

/** A parameter's schema without its rules, and its array items' (as `walk` visits them). */
function withoutChildRules(child: unknown): unknown {
  const stripped = withoutRules(child);
  if (!isSchema(stripped) || !isSchema(stripped['items'])) return stripped;
  return { ...stripped, items: withoutRules(stripped['items']) };
}

/** A rule of an `allOf` that this file checks: a case, or presence only. */
function isRule(part: unknown): part is JsonSchema {
  return isSchema(part) && (isSchema(part['if']) || isPresenceOnly(part));
}

/** A schema that only says which parameters are present (`required`, and `not`/`anyOf`/`oneOf`/`allOf` of such). */
function isPresenceOnly(schema: JsonSchema): boolean {
  return Object.entries(schema).every(([keyword, value]) => {
    switch (keyword) {
      case 'required':
        return Array.isArray(value) && value.every((v) => typeof v === 'string');
      case 'not':
        return isSchema(value) && isPresenceOnly(value);
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        return Array.isArray(value) && value.length > 0 && value.every((v) => isSchema(v) && isPresenceOnly(v));
      case 'description':
      case '$comment':
        return true;
      default:
        return false;
    }
  });
}

/** `[{ required: [a] }, { required: [b, c] }]`: the groups a, b+c; undefined for anything else. */
function presenceGroups(value: unknown): string[][] | undefined {
  if (!Array.isArray(value) || value.length < 2) return undefined;
  const groups: string[][] = [];
  for (const part of value) {
    if (!isSchema(part)) return undefined;
    const keys = Object.keys(part).filter((k) => k !== 'description' && k !== '$comment');
    const required = part['required'];
    if (keys.length !== 1 || keys[0] !== 'required' || !Array.isArray(required) || required.length === 0)
      return undefined;
    groups.push(stringList(required));
  }
  return groups;
}

/** The parameters a presence-only `not` refuses one by one: `not: { required: [k] }`, or an `anyOf` of those. */
function singlyRequired(refused: JsonSchema): string[] {
  const own = stringList(refused['required']);
  const out = own.length === 1 ? [...own] : [];
  for (const keyword of ['anyOf', 'oneOf'] as const)
    for (const part of listOf(refused[keyword])) {
      const required = isSchema(part) ? stringList(part['required']) : [];
      if (required.length === 1) out.push(...required);
    }
  return out;
}

/** `dependentRequired`, and the list form of draft-07 `dependencies`. */
function dependentLists(schema: JsonSchema): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const keyword of ['dependentRequired', 'dependencies'])
    for (const [key, value] of Object.entries(schemaRecordLoose(schema[keyword])))
      if (Array.isArray(value)) out[key] = stringList(value);
  return out;
}

// ───────────────────────────── small helpers ─────────────────────────────

/**
 * Where a missing parameter is reported: at the written parameter that made it needed (`model`
 * of an agent with a real model), else at the object (the connector's name at the top).
 */
function whereMissing(input: RulesInput, place: Place, at?: Case): Span {
  const because = at?.because;
  if (
    because !== undefined &&
    Object.hasOwn(place.value, because) &&
    !(place.pointer === '' && input.headerWords.has(because))
  )
    return spanOf(input, place, because);
  return place.pointer === '' ? input.subject.nameSpan : input.keySpan(place.pointer);
}

/** The one parameter a condition reads (its `required` and `properties`), if it reads exactly one. */
function conditionParam(condition: JsonSchema): string | undefined {
  const names = new Set([
    ...stringList(condition['required']),
    ...Object.keys(schemaRecordLoose(condition['properties'])),
  ]);
  return names.size === 1 ? [...names][0] : undefined;
}

function spanOf(input: RulesInput, place: Place, key: string): Span {
  return input.keySpan(`${place.pointer}/${escapePointer(key)}`);
}

function descriptionOf(schema: JsonSchema, key: string): string | undefined {
  const description = schemaRecord(schema['properties'])[key]?.['description'];
  return typeof description === 'string' ? description : undefined;
}

function containsDynamic(value: unknown): boolean {
  if (value === DYNAMIC) return true;
  if (Array.isArray(value)) return value.some(containsDynamic);
  if (isPlainObject(value)) return Object.values(value).some(containsDynamic);
  return false;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isSchema(value: unknown): value is JsonSchema {
  return isPlainObject(value);
}

function schemaRecord(value: unknown): Record<string, JsonSchema> {
  if (!isPlainObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => isSchema(v))) as Record<string, JsonSchema>;
}

function schemaRecordLoose(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');
}
