/**
 * Compile-time part of the `http` trigger: methods, path, auth (its account checked), rate limit,
 * body limit and the body schema (compiled to a validator) become the HttpTriggerSpec; the first
 * message is the Digibee envelope with the body's shape. Only the envelope fields the pipeline
 * reads are listed (`x-pipe-envelope`), so the trigger builds no others per request.
 */
import type { CompileApi, PipeType, TriggerCompiler, TriggerHookInput } from '../../../compiler/connectors/hook-api.js';

const MB = 1024 * 1024;

/** What http and http-file share: the route, its guard and the envelope fields wanted. */
export function routeSpec({ trigger, ctx, envelope }: TriggerHookInput, api: CompileApi): Record<string, string> {
  const config = trigger.config;
  const methodValue = api.entryOf(config, 'method');
  const methodJson = methodValue ? api.staticJson(methodValue) : undefined;
  const methods = Array.isArray(methodJson) ? methodJson.map(String) : typeof methodJson === 'string' ? [methodJson] : ['POST'];
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

/** The Digibee envelope of an HTTP request: `{ body, headers, queryAndPath, method, path, contentType }`. */
export function httpEnvelope(api: CompileApi, body: PipeType, extra: Record<string, PipeType> = {}): PipeType {
  const t = api.types;
  const open = t.objectOf({}, true);
  return t.closed({ body, headers: open, queryAndPath: open, method: t.STRING, path: t.STRING, contentType: t.STRING, ...extra, principal: open }, ['principal']);
}

export const compile: TriggerCompiler = {
  trigger(input, api) {
    const route = routeSpec(input, api);
    const body = api.compileSchemaParam(api.entryOf(input.trigger.config, 'body'), input.ctx, `${input.ctx.pipeline}-body`);
    const spec: Record<string, string> = { ...route, maxBodySize: String(api.reader(input.trigger.config).num('max-body-size', 5 * MB)) };
    if (body.validator) spec['validateBody'] = body.validator;
    return { spec, message: httpEnvelope(api, body.type) };
  },
};
