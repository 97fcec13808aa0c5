/**
 * Compile-time part of the `http` trigger: methods, path, auth (its account checked), rate limit,
 * body limit and the body schema (compiled to a validator) become the HttpTriggerSpec; the first
 * message is the Digibee envelope with the body's shape. Only the envelope fields the pipeline
 * reads are listed (`x-pipe-envelope`), so the trigger builds no others per request.
 */
import type {
  CompileApi,
  PipelineContext,
  PipeType,
  TriggerCompiler,
  TriggerHookInput,
  Value,
} from '../../../compiler/connectors/hook-api.js';

const MB = 1024 * 1024;

/** What http and http-file share: the route, its guard and the envelope fields wanted. */
export function routeSpec({ trigger, ctx, envelope }: TriggerHookInput, api: CompileApi): Record<string, string> {
  const config = trigger.config;
  const methodValue = api.entryOf(config, 'method');
  const methodJson = methodValue ? api.staticJson(methodValue) : undefined;
  const methods = Array.isArray(methodJson)
    ? methodJson.map(String)
    : typeof methodJson === 'string'
      ? [methodJson]
      : ['POST'];
  const auth = api.triggerAuth(api.entryOf(config, 'auth'), ctx);
  const rateLimit = api.entryOf(config, 'rate-limit');
  const rateJson = rateLimit ? api.staticJson(rateLimit) : undefined;
  return {
    methods: JSON.stringify(methods),
    path: JSON.stringify(api.reader(config).str('path', '/')),
    ...(auth ? { auth } : {}),
    ...(rateJson ? { rateLimit: JSON.stringify(rateJson) } : {}),
    ...(envelope === 'all' ? {} : { envelope: JSON.stringify([...envelope].sort()) }),
  };
}

/**
 * `message.principal`: what runtime/security/auth.ts gives per auth `type` (api-key: the account
 * and the key's index; bearer: the token's subject, scopes and claims; basic: the user name), as
 * closed shapes; any of them when the type is not written as a word. Open when there is no `auth`.
 */
export function principalShape(config: TriggerHookInput['trigger']['config'], api: CompileApi): PipeType {
  const t = api.types;
  const auth = api.entryOf(config, 'auth');
  if (!auth || auth.kind !== 'object') return t.objectOf({}, true);
  const typeValue = api.entryOf(auth, 'type');
  const type =
    typeValue?.kind === 'ident' ? typeValue.name : typeValue?.kind === 'string' ? typeValue.value : undefined;
  const byType: Readonly<Record<string, PipeType>> = {
    'api-key': t.closed({ scheme: t.STRING, account: t.STRING, keyIndex: t.INTEGER }),
    bearer: t.closed({
      scheme: t.STRING,
      subject: t.union(t.STRING, t.NULL),
      scopes: t.arrayOf(t.STRING),
      claims: t.objectOf({}, true),
    }),
    basic: t.closed({ scheme: t.STRING, username: t.STRING }),
  };
  if (type !== undefined && Object.hasOwn(byType, type)) return byType[type] as PipeType;
  return t.union(...Object.values(byType));
}

/** The Digibee envelope of an HTTP request: `{ body, headers, queryAndPath, method, path, contentType }`. */
export function httpEnvelope(
  api: CompileApi,
  body: PipeType,
  extra: Record<string, PipeType> = {},
  principal: PipeType = api.types.objectOf({}, true),
): PipeType {
  const t = api.types;
  const open = t.objectOf({}, true);
  return t.closed(
    {
      body,
      headers: open,
      queryAndPath: open,
      method: t.STRING,
      path: t.STRING,
      contentType: t.STRING,
      ...extra,
      principal,
    },
    ['principal'],
  );
}

/** Default window of `idempotency-key`: a day. */
const DEFAULT_IDEMPOTENCY_WINDOW_MS = 86_400_000;

/**
 * `idempotency-key: { header: "Idempotency-Key" }` or `{ key: "{{ … }}" }` (an expression over the
 * first message), with `window`, as the runtime's IdempotencySpec (runtime/service/idempotency.ts):
 * a hoisted function of the message and the window. Shared by the http and event triggers.
 */
export function idempotencySpec(
  value: Value | undefined,
  message: PipeType,
  ctx: PipelineContext,
  api: CompileApi,
): string | undefined {
  if (!value || value.kind !== 'object') return undefined;
  const windowMs = api.reader(value).num('window', DEFAULT_IDEMPOTENCY_WINDOW_MS);
  const header = api.entryOf(value, 'header');
  const expression = api.entryOf(value, 'key');
  let js: string;
  if (header?.kind === 'string') {
    // Header names arrive lower-case in the envelope.
    const name = JSON.stringify(header.value.toLowerCase());
    js = `(message: Json) => { const h = (message as { headers?: Record<string, Json> } | null)?.headers; return h?.[${name}] ?? null; }`;
  } else if (expression) {
    const compiled = api.compileValue(expression, ctx.bracesEnv(message), ctx);
    js = `(message: Json, ctx: ExecutionContext): Json => ${compiled.js}`;
  } else return undefined;
  const name = ctx.hoist(
    `${ctx.pipeline}-idempotency-key`,
    js,
    'the idempotency key of a message (trigger `idempotency-key`)',
  );
  return `{ key: ${name}, windowMs: ${windowMs} }`;
}

export const compile: TriggerCompiler = {
  trigger(input, api) {
    const idempotency = api.entryOf(input.trigger.config, 'idempotency-key');
    // The key reads the request: headers (a header key) or anything (an expression), so the
    // envelope is built with what the key needs as well as what the steps read.
    if (idempotency?.kind === 'object') {
      const wanted = api.entryOf(idempotency, 'key')
        ? 'all'
        : input.envelope === 'all'
          ? 'all'
          : new Set([...input.envelope, 'headers']);
      input = { ...input, envelope: wanted };
    }
    const route = routeSpec(input, api);
    const body = api.compileSchemaParam(
      api.entryOf(input.trigger.config, 'body'),
      input.ctx,
      `${input.ctx.pipeline}-body`,
    );
    const spec: Record<string, string> = {
      ...route,
      maxBodySize: String(api.reader(input.trigger.config).num('max-body-size', 5 * MB)),
    };
    if (body.validator) spec['validateBody'] = body.validator;
    const message = httpEnvelope(api, body.type, {}, principalShape(input.trigger.config, api));
    const idempotencyJs = idempotencySpec(idempotency, message, input.ctx, api);
    if (idempotencyJs) spec['idempotency'] = idempotencyJs;
    return { spec, message };
  },
};
