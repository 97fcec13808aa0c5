/**
 * OpenAPI 3.1 of a service's HTTP routes (issue 22, item 6), from the checked pipelines: every
 * pipeline whose trigger serves a route (its schema's `x-pipe-route`) is one operation per method,
 * with its `:name` path segments as path parameters, the query parameters its steps read
 * (`message.queryAndPath.NAME` that is not a path segment), its body schema (a named schema is a
 * component), its auth as a security scheme, and the answers it can give: each `respond` status,
 * each `fail` status, the final message when a path ends without either, and the trigger's
 * failures (its schema's `x-pipe-errors`; one whose `when` starts with "PARAM is set" only where
 * PARAM is set) with the error object every failure reply has.
 *
 * Pure: ASTs, declarations and schemas in, a JSON document out. Served at /openapi.json by the
 * built service, written by `pipec openapi`.
 */
import type { Span } from '../../base/source/span.js';
import type { ObjectValue, PipeFile, PipelineDecl, Step, Value } from '../ast/ast.js';
import { toLiteral } from '../ast/literal.js';
import type { ConnectorRegistry, ConnectorSchema } from '../connectors/connector-registry.js';
import type { Declarations } from '../resolve/declarations.js';

type JsonObject = { [key: string]: unknown };

export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  /** `file:line` of a span, for the descriptions of answers. */
  readonly where: (span: Span) => string;
}

/** The error object of every failure reply (runtime/service/http-response.ts). */
const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'code'],
  properties: {
    timestamp: { type: 'integer', description: 'When it failed, in milliseconds since the epoch.' },
    error: { type: 'string', description: 'What went wrong.' },
    message: { type: 'string' },
    code: { type: 'integer', description: 'The HTTP status.' },
    executionId: { type: 'string', description: 'The execution, as logged.' },
    violations: {
      type: 'array',
      description: 'Body schema violations (422).',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    limit: { type: 'integer', description: 'The size limit that was exceeded (413).' },
    backend: { type: 'string', description: 'The backend that is unavailable (503).' },
    retryAfter: { type: 'integer', description: 'Seconds to wait before trying again (503, 429).' },
  },
  additionalProperties: true,
} as const;

/** Failures of every route: a bug, and a backend away (503 with Retry-After). */
const SERVICE_ERRORS: readonly { readonly status: number; readonly when: string }[] = [
  { status: 500, when: 'an unexpected failure of a step' },
  {
    status: 503,
    when: 'the service is draining, or a backend it needs is unavailable (Retry-After says when to try again)',
  },
];

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

function entryValue(config: ObjectValue, key: string): Value | undefined {
  for (const entry of config.entries) if (entry.kind === 'entry' && entry.key === key) return entry.value;
  return undefined;
}

/** `/orders/:id` → `/orders/{id}` and the parameter names. */
export function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1);
      params.push(name);
      return `{${name}}`;
    })
    .join('/');
  return { path: converted, params };
}

/** Every step of a pipeline, nested ones included (choice, try/catch, for-each, branches, on-error, on-fail). */
function allSteps(steps: readonly Step[], out: Step[] = []): Step[] {
  for (const step of steps) {
    out.push(step);
    if (step.kind === 'choice') {
      for (const when of step.whens) if (when.body.kind === 'inline') allSteps(when.body.steps, out);
      if (step.otherwise?.kind === 'inline') allSteps(step.otherwise.steps, out);
    } else if (step.kind === 'try') {
      allSteps(step.body, out);
      allSteps(step.catchBody, out);
    } else if (step.kind === 'for-each') {
      allSteps(step.body, out);
    } else if (step.kind === 'connector') {
      for (const entry of step.params?.entries ?? []) if (entry.kind === 'steps-entry') allSteps(entry.steps, out);
    }
  }
  return out;
}

/** True when the steps can end without a respond or fail (the reply is then the last message, 200). */
function canFallThrough(steps: readonly Step[]): boolean {
  const last = steps[steps.length - 1];
  if (!last) return true;
  if (last.kind === 'respond' || last.kind === 'fail') return false;
  if (last.kind === 'choice') {
    const bodies = [...last.whens.map((w) => w.body), ...(last.otherwise ? [last.otherwise] : [])];
    return !last.otherwise || bodies.some((b) => b.kind !== 'inline' || canFallThrough(b.steps));
  }
  if (last.kind === 'try') return canFallThrough(last.body) || canFallThrough(last.catchBody);
  return true;
}

/** The query parameters the pipeline reads (`queryAndPath.NAME` in any expression), without its path parameters. */
function queryParams(pipeline: PipelineDecl, pathParams: readonly string[]): string[] {
  const text = JSON.stringify([pipeline.steps, pipeline.onError ?? [], pipeline.branches]);
  const found = new Set<string>();
  for (const match of text.matchAll(/queryAndPath(?:\.|\[\\?["'])([A-Za-z_][A-Za-z0-9_-]*)/g)) {
    if (match[1] && !pathParams.includes(match[1])) found.add(match[1]);
  }
  return [...found].sort();
}

interface Builder {
  readonly schemas: Record<string, unknown>;
  readonly securitySchemes: Record<string, unknown>;
}

/** The body schema: a named one becomes a component and is referenced. */
function bodySchema(value: Value, declarations: Declarations, builder: Builder): unknown {
  if (value.kind === 'ident') {
    const named = declarations.schemas.get(value.name);
    if (named) {
      builder.schemas[value.name] ??= named.json;
      return { $ref: `#/components/schemas/${value.name}` };
    }
  }
  return toLiteral(value).json;
}

/** The security scheme of an `auth` block, registered under a name made of its settings. */
function securityOf(auth: Value, builder: Builder): { name: string; scopes: string[] } | null {
  const json = toLiteral(auth).json as JsonObject;
  const scopes = Array.isArray(json['scopes'])
    ? (json['scopes'] as unknown[]).filter((s): s is string => typeof s === 'string')
    : [];
  switch (json['type']) {
    case 'api-key': {
      const where = json['in'] === 'query' ? 'query' : 'header';
      const name = typeof json['name'] === 'string' ? json['name'] : where === 'query' ? 'api_key' : 'x-api-key';
      const key = `apiKey-${where}-${name}`;
      builder.securitySchemes[key] ??= { type: 'apiKey', in: where, name };
      return { name: key, scopes: [] };
    }
    case 'bearer':
      builder.securitySchemes['bearer'] ??= { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
      return { name: 'bearer', scopes };
    case 'basic':
      builder.securitySchemes['basic'] ??= { type: 'http', scheme: 'basic' };
      return { name: 'basic', scopes: [] };
    default:
      return null;
  }
}

const errorResponse = (description: string): JsonObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function responsesOf(
  pipeline: PipelineDecl,
  schema: ConnectorSchema,
  config: ObjectValue,
  where: (span: Span) => string,
): JsonObject {
  const responses: Record<string, JsonObject> = {};
  const add = (status: number, make: () => JsonObject, when: string): void => {
    const key = String(status);
    const existing = responses[key];
    if (existing) existing['description'] = `${String(existing['description'])}; ${when}`;
    else responses[key] = { ...make(), description: when };
  };
  const branchSteps = pipeline.branches.flatMap((b) => b.steps);
  const steps = allSteps([...pipeline.steps, ...branchSteps, ...(pipeline.onError ?? [])]);
  for (const step of steps) {
    if (step.kind === 'respond') {
      const json = step.status !== 204 && step.body !== undefined;
      add(
        step.status,
        () => (json ? { content: { 'application/json': { schema: {} } } } : {}),
        `\`respond ${step.status}\` at ${where(step.span)}`,
      );
    } else if (step.kind === 'fail') {
      add(step.status ?? 500, () => errorResponse(''), `\`fail\` at ${where(step.span)}`);
    }
  }
  if (canFallThrough(pipeline.steps))
    add(200, () => ({ content: { 'application/json': { schema: {} } } }), 'the message after the last step');
  for (const error of schema['x-pipe-errors'] ?? []) {
    if (error.status === undefined) continue;
    const condition = /^([a-z][a-z0-9-]*) is set\b/.exec(error.when)?.[1];
    if (condition && !entryValue(config, condition)) continue;
    add(error.status, () => errorResponse(''), `${error.kind}: ${error.when}`);
  }
  for (const error of SERVICE_ERRORS) add(error.status, () => errorResponse(''), error.when);
  // Descriptions read "<reason>: <when>; <when>".
  for (const [status, response] of Object.entries(responses)) {
    const reason = REASONS[Number(status)] ?? `Status ${status}`;
    response['description'] = `${reason}: ${String(response['description']).replace(/^; /, '')}`;
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** The OpenAPI document of the routes of `files`; empty `paths` when no pipeline serves one. */
export function buildOpenApi(
  files: readonly PipeFile[],
  declarations: Declarations,
  registry: ConnectorRegistry,
  info: OpenApiInfo,
): JsonObject {
  const builder: Builder = { schemas: { Error: ERROR_SCHEMA }, securitySchemes: {} };
  const paths: Record<string, Record<string, unknown>> = {};
  const pipelines = files.flatMap((f) => f.decls.filter((d): d is PipelineDecl => d.kind === 'pipeline'));
  for (const pipeline of [...pipelines].sort((a, b) => a.name.localeCompare(b.name))) {
    const trigger = pipeline.trigger;
    const schema = trigger ? registry.triggers.get(trigger.kind) : undefined;
    const route = schema?.['x-pipe-route'];
    if (!trigger || !schema || !route) continue;
    const rawPath = toLiteral(
      entryValue(trigger.config, route.path) ?? { kind: 'string', value: '/', span: trigger.span, multiline: false },
    ).json;
    if (typeof rawPath !== 'string') continue;
    const methodValue = route.method !== undefined ? entryValue(trigger.config, route.method) : undefined;
    const methodJson = methodValue ? toLiteral(methodValue).json : route['default-method'];
    const methods = (Array.isArray(methodJson) ? methodJson : [methodJson]).filter(
      (m): m is string => typeof m === 'string',
    );
    const { path, params } = openApiPath(rawPath);
    const parameters = [
      ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...queryParams(pipeline, params).map((name) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
      })),
    ];
    const body = entryValue(trigger.config, 'body');
    const auth = entryValue(trigger.config, 'auth');
    const security = auth ? securityOf(auth, builder) : null;
    const responses = responsesOf(pipeline, schema, trigger.config, info.where);
    methods.forEach((method, i) => {
      const lower = method.toLowerCase();
      const operation: JsonObject = {
        operationId: i === 0 ? pipeline.name : `${pipeline.name}-${lower}`,
        summary: `pipeline ${pipeline.name}`,
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(body && !['get', 'head', 'delete', 'options'].includes(lower)
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: bodySchema(body, declarations, builder) } },
              },
            }
          : {}),
        ...(security ? { security: [{ [security.name]: security.scopes }] } : {}),
        responses,
      };
      (paths[path] ??= {})[lower] = operation;
    });
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    paths,
    components: {
      schemas: builder.schemas,
      ...(Object.keys(builder.securitySchemes).length > 0 ? { securitySchemes: builder.securitySchemes } : {}),
    },
  };
}
