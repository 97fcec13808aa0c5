/**
 * Guards of the HTTP triggers, checked before a request body is read: authentication
 * (runtime/security/auth.ts: api-key, bearer JWT, basic) and per-client rate limits
 * (runtime/security/rate-limit.ts). Refusals are 401/403 with WWW-Authenticate, or 429 with
 * Retry-After. Misconfiguration (unknown account, bad key) throws when the guard is built, so a
 * broken service fails at start rather than on the first request.
 * Trigger specs may spell options as in .pipe (`jwks-url`, `leeway` in ms) or as the security
 * module does (`jwksUrl`, `leewaySeconds`).
 */
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createAuthenticator, type AuthSpec, type Authenticator } from '../security/auth.js';
import {
  createRateLimiter,
  createSharedRateLimiter,
  rateLimitClientKey,
  type RateLimitDecision,
  type RateLimitSpec,
  type RateLimitStore,
} from '../security/rate-limit.js';
import type { Clock, Json, JsonObject } from '../types.js';
import { PipeError } from '../errors.js';
import { createRefusals, type Refuse } from './refusal.js';

export type GuardResult =
  { readonly ok: true; readonly principal: JsonObject | null } | { readonly ok: false; readonly response: Response };
export type TriggerGuard = (c: Context) => Promise<GuardResult>;

function get(obj: JsonObject, ...names: string[]): Json | undefined {
  for (const n of names) if (Object.hasOwn(obj, n)) return obj[n];
  return undefined;
}

const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const strings = (v: Json | undefined): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

/** The trigger's `auth` object as the security module's AuthSpec. */
export function toAuthSpec(auth: JsonObject): AuthSpec {
  const type = get(auth, 'type');
  const account = str(get(auth, 'account'));
  if (type === 'api-key' || type === 'basic') {
    if (!account) throw new Error(`auth ${type}: an account is required`);
    if (type === 'basic') {
      const realm = str(get(auth, 'realm'));
      return { type, account, ...(realm ? { realm } : {}) };
    }
    const where = get(auth, 'in');
    return { type, account, in: where === 'query' ? 'query' : 'header', name: str(get(auth, 'name')) ?? '' };
  }
  if (type === 'bearer') {
    const leewayMs = get(auth, 'leeway');
    const leewaySeconds =
      get(auth, 'leewaySeconds') ?? (typeof leewayMs === 'number' ? Math.floor(leewayMs / 1000) : undefined);
    const audience = get(auth, 'audience');
    const claims = get(auth, 'claims');
    const spec: AuthSpec = {
      type,
      ...(account ? { account } : {}),
      ...(str(get(auth, 'jwksUrl', 'jwks-url')) ? { jwksUrl: str(get(auth, 'jwksUrl', 'jwks-url')) as string } : {}),
      ...(str(get(auth, 'issuer')) ? { issuer: str(get(auth, 'issuer')) as string } : {}),
      ...(typeof audience === 'string'
        ? { audience }
        : strings(audience)
          ? { audience: strings(audience) as string[] }
          : {}),
      ...(strings(get(auth, 'scopes')) ? { scopes: strings(get(auth, 'scopes')) as string[] } : {}),
      ...(claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? { claims } : {}),
      ...(typeof leewaySeconds === 'number' ? { leewaySeconds } : {}),
      ...(strings(get(auth, 'algorithms')) ? { algorithms: strings(get(auth, 'algorithms')) as string[] } : {}),
    };
    return spec;
  }
  throw new Error(`auth: unknown type ${JSON.stringify(type ?? null)}`);
}

/** The trigger's `rate-limit` object as the security module's RateLimitSpec. */
export function toRateLimitSpec(limit: JsonObject): RateLimitSpec {
  const max = get(limit, 'max');
  const window = get(limit, 'window');
  if (typeof max !== 'number' || typeof window !== 'number')
    throw new Error('rate-limit: max and window are required numbers');
  const key = get(limit, 'key');
  const header = key !== null && typeof key === 'object' && !Array.isArray(key) ? str(get(key, 'header')) : undefined;
  const algorithm = get(limit, 'algorithm');
  return {
    max,
    window,
    key: key === 'api-key' || key === 'principal' ? key : header ? { header } : 'ip',
    ...(algorithm === 'fixed' || algorithm === 'sliding' ? { algorithm } : {}),
  };
}

function clientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // in-process requests (app.request) have no socket
  }
}

function tooManyRequests(decision: RateLimitDecision, request: Request, refuse: Refuse): Response {
  const refusal = new PipeError('Too Many Requests', { code: 429, kind: 'RATE_LIMITED' });
  return refuse(refusal, request, { 'retry-after': String(decision.retryAfterSeconds) });
}

/**
 * Builds the guard of a trigger, or null when it declares neither auth nor rate-limit. Refusals
 * are made by `refuse` (the service's, which logs them with an id); default: unlogged.
 */
export function createTriggerGuard(
  spec: { readonly auth?: JsonObject; readonly rateLimit?: JsonObject },
  accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>,
  clock: Clock,
  refuse: Refuse = createRefusals({ clock }),
  shared?: { readonly store: RateLimitStore; readonly scope: string },
): TriggerGuard | null {
  if (!spec.auth && !spec.rateLimit) return null;
  const authenticate: Authenticator | null = spec.auth
    ? createAuthenticator(toAuthSpec(spec.auth), accounts, { now: () => clock.now() })
    : null;
  const limitSpec = spec.rateLimit ? toRateLimitSpec(spec.rateLimit) : null;
  // Counted in the backend replicas share when there is one (N replicas allow max in total), else here.
  const limit: ((key: string) => RateLimitDecision | Promise<RateLimitDecision>) | null = !limitSpec
    ? null
    : shared
      ? createSharedRateLimiter(limitSpec, shared.store, shared.scope, () => clock.now())
      : createRateLimiter(limitSpec, () => clock.now());
  // Identity-keyed limits need the principal first; IP/header limits run first so failed logins count too.
  const limitAfterAuth = limitSpec?.key === 'api-key' || limitSpec?.key === 'principal';

  const checkLimit = async (c: Context, principal: JsonObject | null): Promise<Response | null> => {
    if (!limit || !limitSpec) return null;
    const key = rateLimitClientKey(limitSpec.key, {
      ip: clientIp(c),
      headers: c.req.raw.headers,
      ...(principal ? { principal } : {}),
    });
    let decision: RateLimitDecision;
    try {
      decision = await limit(key);
    } catch (err) {
      // The shared counters are out of reach: refused (503 with Retry-After when the backend is away), never let through.
      return refuse(
        err instanceof PipeError
          ? err
          : new PipeError('Rate limit unavailable', { code: 503, kind: 'BACKEND_UNAVAILABLE', cause: err }),
        c.req.raw,
      );
    }
    return decision.allowed ? null : tooManyRequests(decision, c.req.raw, refuse);
  };

  return async (c) => {
    if (!limitAfterAuth) {
      const refused = await checkLimit(c, null);
      if (refused) return { ok: false, response: refused };
    }
    let principal: JsonObject | null = null;
    if (authenticate) {
      const result = await authenticate({ headers: c.req.raw.headers, url: new URL(c.req.url) });
      if (!result.ok) {
        const kind = result.status === 403 ? 'FORBIDDEN' : 'UNAUTHENTICATED';
        const refusal = new PipeError(result.error, { code: result.status, kind });
        return { ok: false, response: refuse(refusal, c.req.raw, { 'www-authenticate': result.wwwAuthenticate }) };
      }
      principal = result.principal;
    }
    if (limitAfterAuth) {
      const refused = await checkLimit(c, principal);
      if (refused) return { ok: false, response: refused };
    }
    return { ok: true, principal };
  };
}
