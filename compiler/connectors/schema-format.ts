/**
 * The format of a connector's or trigger's `schema.json`: a JSON Schema of the file (checked for
 * every folder by connector-schemas.test.ts) and the cross-checks a JSON Schema cannot express
 * (every parameter an `x-pipe-*` fact names exists), which the registry loader runs on every
 * folder it loads, so a contributor's slip is an error naming the file, not a silent no-op.
 * runtime/connectors/README.md explains each key.
 */
import { paramProperties, type ConnectorSchema, type JsonSchema } from './connector-registry.js';
import { refParams } from './schema-facts.js';

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' };
const PARAM = { type: 'string', minLength: 1 };
const SPAN_KIND = { enum: ['server', 'client', 'producer', 'consumer'] };

/** A parameter's schema may carry these marks besides JSON Schema keywords. */
export const PROPERTY_MARKS = [
  'x-pipe-braces',
  'x-pipe-ref',
  'x-pipe-unit',
  'x-pipe-steps',
  'x-pipe-split',
  'x-pipe-opt-out',
  'x-pipe-refuses-braces',
  'x-pipe-account-types',
  'x-pipe-contract',
  'x-pipe-boundary',
  'x-pipe-secret',
] as const;

export const COMPONENT_SCHEMA_FORMAT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind', 'summary', 'params'],
  properties: {
    $comment: { type: 'string' },
    name: NAME,
    kind: { enum: ['connector', 'trigger'] },
    summary: { type: 'string', minLength: 10 },
    positional: { type: 'array', items: PARAM },
    params: { type: 'object', required: ['type'], properties: { type: { const: 'object' } } },
    // The options of the resource declaration a connector owns (`store NAME { expire-after: 7d }`),
    // checked like parameters (compiler/check/check-declarations.ts).
    declaration: { type: 'object', required: ['type'], properties: { type: { const: 'object' } } },
    output: {
      anyOf: [{ const: 'input' }, { type: 'string', pattern: '^params\\.' }, { type: 'object' }, { type: 'null' }],
    },
    synchronous: { type: 'boolean' },
    message: {
      type: 'object',
      additionalProperties: false,
      required: ['read'],
      properties: {
        read: {
          anyOf: [
            { enum: ['always', 'never'] },
            { type: 'object', additionalProperties: false, required: ['unless'], properties: { unless: PARAM } },
          ],
        },
        passedThrough: { type: 'boolean' },
      },
    },
    'x-pipe-span': {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: { kind: SPAN_KIND, attributes: { type: 'object', additionalProperties: PARAM } },
    },
    'x-pipe-metrics': {
      type: 'object',
      additionalProperties: false,
      properties: {
        'events-published': {
          type: 'object',
          additionalProperties: false,
          required: ['event'],
          properties: { event: PARAM },
        },
        'token-usage': {
          type: 'object',
          additionalProperties: false,
          required: ['model', 'usage'],
          properties: { model: PARAM, usage: PARAM },
        },
      },
    },
    'x-pipe-test': {
      type: 'object',
      additionalProperties: false,
      properties: {
        network: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['why'],
            properties: { why: { type: 'string', pattern: '^it ' }, when: { type: 'object' } },
          },
        },
        publishes: {
          type: 'object',
          additionalProperties: false,
          required: ['event'],
          properties: { event: PARAM, payload: PARAM },
        },
      },
    },
    'x-pipe-envelope': { const: true },
    'x-pipe-route': {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'default-method'],
      properties: { path: PARAM, method: PARAM, 'default-method': { type: 'string', pattern: '^[A-Z]+$' } },
    },
    'x-pipe-graph': {
      type: 'object',
      additionalProperties: false,
      properties: { label: { type: 'array', items: PARAM } },
    },
    // The failures the component can produce (PipeError kind, and status when it is fixed), for its
    // reference page (docs/connectors/) and for checks of routing on error kinds. An empty list:
    // it fails in no way of its own.
    'x-pipe-errors': {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'when'],
        properties: {
          kind: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
          status: { type: 'integer', minimum: 400, maximum: 599 },
          when: { type: 'string', minLength: 5 },
        },
      },
    },
    // How the step option `retry` behaves on this connector (compiler/check/check-policies.ts):
    // its defaults, the output field that carries a status (a connector that answers HTTP errors as
    // data), and when a retried call is not idempotent (a JSON Schema over the literal parameters).
    'x-pipe-retry': {
      type: 'object',
      additionalProperties: false,
      properties: {
        // Parameters through which the connector retries by itself (PIPE3016 beside `retry`).
        own: { type: 'array', items: PARAM },
        defaults: {
          type: 'object',
          additionalProperties: false,
          properties: {
            attempts: { type: 'integer', minimum: 1, maximum: 20 },
            initial: { type: 'integer', minimum: 0 },
            'max-delay': { type: 'integer', minimum: 0 },
            multiplier: { type: 'number', minimum: 1 },
            budget: { type: 'integer', minimum: 0 },
            on: { type: 'array', items: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' } },
            status: { type: 'array', items: { type: 'integer', minimum: 400, maximum: 599 } },
          },
        },
        output: {
          type: 'object',
          additionalProperties: false,
          required: ['status'],
          properties: { status: PARAM, headers: PARAM },
        },
        unsafe: {
          type: 'object',
          additionalProperties: false,
          required: ['when', 'how'],
          properties: { when: { type: 'object' }, how: { type: 'string', minLength: 10 } },
        },
      },
    },
  },
};

const REF_KINDS = ['account', 'schema', 'pipeline', 'store', 'event'];

/** What the schema names that does not exist (parameters of x-pipe facts, ref kinds); empty when consistent. */
export function componentSchemaProblems(schema: ConnectorSchema): string[] {
  const problems: string[] = [];
  const properties = paramProperties(schema);
  const need = (param: string | undefined, where: string): void => {
    if (param !== undefined && !Object.hasOwn(properties, param))
      problems.push(`${where} names the parameter \`${param}\`, which params does not declare`);
  };
  for (const param of schema.positional ?? []) need(param, 'positional');
  for (const [key, property] of Object.entries(properties)) {
    const ref = property['x-pipe-ref'];
    if (ref !== undefined && !REF_KINDS.includes(String(ref)))
      problems.push(`params.${key}: x-pipe-ref must be one of ${REF_KINDS.join(', ')}`);
    const types = property['x-pipe-account-types'];
    if (
      types !== undefined &&
      (ref !== 'account' || !Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === 'string'))
    ) {
      problems.push(
        `params.${key}: x-pipe-account-types is a list of account types, on a parameter with x-pipe-ref: account`,
      );
    }
    const contract = property['x-pipe-contract'];
    if (
      contract !== undefined &&
      ((contract !== 'pipeline' && contract !== 'event') || refParams(schema, contract).length === 0)
    ) {
      problems.push(
        `params.${key}: x-pipe-contract is pipeline or event, on a schema with a parameter of that x-pipe-ref`,
      );
    }
    if (
      property['x-pipe-boundary'] !== undefined &&
      (property['x-pipe-boundary'] !== true || property['type'] !== 'boolean')
    ) {
      problems.push(`params.${key}: x-pipe-boundary is true, on a boolean parameter`);
    }
    const secret = property['x-pipe-secret'];
    if (secret !== undefined && secret !== 'sink' && secret !== 'credential') {
      problems.push(`params.${key}: x-pipe-secret is sink (a way out of the service) or credential`);
    }
    const refusal = property['x-pipe-refuses-braces'];
    if (
      refusal !== undefined &&
      (typeof refusal !== 'string' || refusal === '' || property['x-pipe-braces'] === true)
    ) {
      problems.push(
        `params.${key}: x-pipe-refuses-braces is the text saying how to pass a value instead, on a parameter without x-pipe-braces`,
      );
    }
    const split = property['x-pipe-split'] as { into?: unknown } | undefined;
    if (split !== undefined) {
      const into = Array.isArray(split.into) ? split.into.map(String) : [];
      if (into.length !== 2) problems.push(`params.${key}: x-pipe-split.into names two parameters`);
      for (const part of into) need(part, `params.${key}.x-pipe-split`);
    }
  }
  for (const param of Object.values(schema['x-pipe-span']?.attributes ?? {})) need(param, 'x-pipe-span.attributes');
  need(schema['x-pipe-metrics']?.['events-published']?.event, 'x-pipe-metrics.events-published');
  need(schema['x-pipe-metrics']?.['token-usage']?.model, 'x-pipe-metrics.token-usage');
  need(schema['x-pipe-test']?.publishes?.event, 'x-pipe-test.publishes');
  need(schema['x-pipe-test']?.publishes?.payload, 'x-pipe-test.publishes');
  const route = schema['x-pipe-route'];
  if (route) {
    need(route.path, 'x-pipe-route.path');
    need(route.method, 'x-pipe-route.method');
  }
  for (const param of schema['x-pipe-graph']?.label ?? []) need(param, 'x-pipe-graph.label');
  const kinds = new Set((schema['x-pipe-errors'] ?? []).map((e) => e.kind));
  for (const kind of schema['x-pipe-retry']?.defaults?.on ?? []) {
    if (!kinds.has(kind))
      problems.push(`x-pipe-retry.defaults.on names the error kind ${kind}, which x-pipe-errors does not list`);
  }
  problems.push(...undeclaredRuleParameters(schema.params, 'params'));
  const trigger = schema.kind === 'trigger';
  for (const key of ['x-pipe-envelope', 'x-pipe-route'] as const)
    if (!trigger && schema[key] !== undefined) problems.push(`${key} is for triggers`);
  for (const key of [
    'x-pipe-metrics',
    'x-pipe-test',
    'x-pipe-retry',
    'positional',
    'synchronous',
    'message',
    'declaration',
  ] as const)
    if (trigger && schema[key] !== undefined) problems.push(`${key} is for connectors`);
  return problems;
}

/**
 * Parameters named by the rules between parameters (compiler/check/param-rules.ts: `if`/`then`,
 * `allOf`, `oneOf` of `required`, `dependentRequired`, `not`) that the object they apply to does
 * not declare: a rule on a misspelt name would never fire. Nested objects are checked too.
 */
function undeclaredRuleParameters(objectSchema: JsonSchema, where: string): string[] {
  const declared = objectSchema['properties'];
  if (!declared || typeof declared !== 'object') return [];
  const problems: string[] = [];
  const need = (name: string, at: string): void => {
    if (!Object.hasOwn(declared, name))
      problems.push(`${at} names the parameter \`${name}\`, which ${where} does not declare`);
  };
  const visit = (rule: unknown, at: string): void => {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) return;
    const r = rule as JsonSchema;
    for (const name of Array.isArray(r['required']) ? (r['required'] as string[]) : []) need(name, at);
    if (at !== where) for (const name of Object.keys((r['properties'] as object | undefined) ?? {})) need(name, at);
    for (const keyword of ['dependentRequired', 'dependencies']) {
      const deps = r[keyword];
      if (!deps || typeof deps !== 'object') continue;
      for (const [name, needs] of Object.entries(deps)) {
        need(name, `${at}.${keyword}`);
        if (Array.isArray(needs)) for (const other of needs as string[]) need(other, `${at}.${keyword}`);
      }
    }
    for (const keyword of ['if', 'then', 'else', 'not']) visit(r[keyword], `${at}.${keyword}`);
    for (const keyword of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(r[keyword]))
        (r[keyword] as unknown[]).forEach((part, i) => visit(part, `${at}.${keyword}[${i}]`));
  };
  visit(objectSchema, where);
  for (const [key, child] of Object.entries(declared as Record<string, JsonSchema>)) {
    if (!child || typeof child !== 'object') continue;
    problems.push(...undeclaredRuleParameters(child, `${where}.${key}`));
    const items = child['items'];
    if (items && typeof items === 'object' && !Array.isArray(items))
      problems.push(...undeclaredRuleParameters(items as JsonSchema, `${where}.${key}[]`));
  }
  return problems;
}
