/**
 * Per-client request rate limiting for http triggers (the lead's server answers 429 + Retry-After).
 *
 * In: the trigger's `rate-limit` spec (window in ms, max requests per window, what identifies a
 * client) and a clock. Out: a function that records one request for a client key and says whether
 * it is allowed, how many remain, and how long to wait when refused.
 *
 * Algorithm: the sliding-window counter (default) weighs the previous fixed window's count by how
 * much of it still overlaps the sliding window; `algorithm: 'fixed'` uses plain fixed windows.
 * Memory is bounded: at most `maxClients` keys are kept, least recently seen evicted first, and
 * refused requests are not counted (a client hammering while blocked does not extend its block).
 */
import type { Json, JsonObject } from '../types.js';

export interface RateLimitSpec {
  /** Window length in ms. */
  window: number;
  /** Requests allowed per window and client. */
  max: number;
  key: 'ip' | 'api-key' | 'principal' | { header: string };
  /** Default 'sliding'. */
  algorithm?: 'sliding' | 'fixed';
  /** Most client keys remembered at once (default 10000). */
  maxClients?: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until a request would be allowed again (0 when allowed). */
  retryAfterSeconds: number;
  /** Requests left in the current window after this one. */
  remaining: number;
}

/** A client's counters: what the stores keep per client key. */
export interface ClientWindow {
  /** Start (ms) of the fixed window `count` belongs to. */
  start: number;
  count: number;
  /** Count of the fixed window just before `start`. */
  previous: number;
}

const DEFAULT_MAX_CLIENTS = 10_000;
const MAX_HEADER_KEY_LENGTH = 256;

/**
 * @example
 *   const limit = createRateLimiter({ window: 60_000, max: 100, key: 'ip' });
 *   const d = limit(clientKey);
 *   if (!d.allowed) return c.text('Too Many Requests', 429, { 'Retry-After': String(d.retryAfterSeconds) });
 */
export function createRateLimiter(
  spec: RateLimitSpec,
  now: () => number = Date.now,
): (clientKey: string) => RateLimitDecision {
  checkSpec(spec);
  const maxClients = spec.maxClients ?? DEFAULT_MAX_CLIENTS;
  if (!Number.isInteger(maxClients) || maxClients < 1)
    throw new Error('rate-limit: maxClients must be a positive integer');
  // Map iteration order is insertion order; re-inserting on every touch makes the first entry the
  // least recently seen, so eviction is O(1).
  const clients = new Map<string, ClientWindow>();

  return (clientKey) => {
    const { state, decision } = decideRequest(spec, clients.get(clientKey), now());
    clients.delete(clientKey);
    if (clients.size >= maxClients) {
      const oldest = clients.keys().next();
      if (!oldest.done) clients.delete(oldest.value);
    }
    clients.set(clientKey, state);
    return decision;
  };
}

function checkSpec(spec: RateLimitSpec): void {
  if (!Number.isFinite(spec.window) || spec.window <= 0)
    throw new Error('rate-limit: window must be a positive number of ms');
  if (!Number.isInteger(spec.max) || spec.max < 1) throw new Error('rate-limit: max must be a positive integer');
}

/**
 * One request of a client at time `t`: its counters after it (counted only when allowed) and the
 * decision. Pure: the in-process limiter and the shared ones (RateLimitStore) decide alike.
 */
export function decideRequest(
  spec: RateLimitSpec,
  previous: ClientWindow | undefined,
  t: number,
): { state: ClientWindow; decision: RateLimitDecision } {
  const { window, max } = spec;
  const sliding = spec.algorithm !== 'fixed';
  const start = Math.floor(t / window) * window;
  const state = { ...rollWindow(previous, start, window) };
  const elapsed = t - start;
  const used = sliding ? state.previous * (1 - elapsed / window) + state.count : state.count;
  if (used + 1 <= max) {
    state.count += 1;
    return {
      state,
      decision: { allowed: true, retryAfterSeconds: 0, remaining: Math.max(0, Math.floor(max - used - 1)) },
    };
  }
  const waitMs = sliding ? slidingWait(state, elapsed, window, max) : window - elapsed;
  return {
    state,
    decision: { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), remaining: 0 },
  };
}

/**
 * Where the counters of limits shared by replicas live (a backend every replica reaches: PostgreSQL
 * or NATS KV). `update` reads a key's counters, applies `step`, and writes the result only if
 * nobody wrote the key in between (else it reads again): an atomic read-modify-write.
 */
export interface RateLimitStore {
  update<T>(
    key: string,
    ttlMs: number,
    step: (state: ClientWindow | undefined) => { state: ClientWindow; result: T; changed: boolean },
  ): Promise<T>;
}

/**
 * A limiter whose counters are in `store`, so N replicas allow `max` per window in total, not N
 * times it. `scope` tells limits of different triggers apart (the pipeline's name).
 */
export function createSharedRateLimiter(
  spec: RateLimitSpec,
  store: RateLimitStore,
  scope: string,
  now: () => number = Date.now,
): (clientKey: string) => Promise<RateLimitDecision> {
  checkSpec(spec);
  // The counters of the previous window are still read: keep a key two windows.
  const ttlMs = 2 * spec.window;
  return (clientKey) =>
    store.update(JSON.stringify([scope, clientKey]), ttlMs, (previous) => {
      const { state, decision } = decideRequest(spec, previous, now());
      return {
        state,
        result: decision,
        changed: decision.allowed || previous === undefined || previous.start !== state.start,
      };
    });
}

/** The client's counters moved to the fixed window starting at `start`. */
function rollWindow(state: ClientWindow | undefined, start: number, window: number): ClientWindow {
  if (state === undefined || state.start < start - window) return { start, count: 0, previous: 0 };
  if (state.start === start - window) return { start, count: 0, previous: state.count };
  return state; // same window (or the clock stepped back: keep counting where we were)
}

/**
 * Smallest wait (ms) after which the sliding estimate allows one more request: either later in the
 * current window, as the previous window's weight shrinks, or in the next one, where this window's
 * count becomes the shrinking previous count.
 */
function slidingWait(state: ClientWindow, elapsed: number, window: number, max: number): number {
  const budget = max - 1;
  if (state.count <= budget && state.previous > 0) {
    const wait = window * (1 - (budget - state.count) / state.previous) - elapsed;
    if (wait < window - elapsed) return Math.max(0, wait);
  }
  const intoNext = state.count > budget ? window * (1 - budget / state.count) : 0;
  return window - elapsed + intoNext;
}

/** Who the request is, as far as the limiter is concerned. */
export interface RateLimitSubject {
  readonly ip: string;
  readonly headers: Headers;
  /** The authenticator's principal, when the trigger has auth. */
  readonly principal?: JsonObject;
}

/**
 * The client key for a request: by IP, by API key identity, by authenticated principal, or by a
 * header value. Falls back to the IP when the chosen identity is absent, so unauthenticated traffic
 * is still limited.
 *
 * @example
 *   limit(rateLimitClientKey(spec.key, { ip, headers: c.req.raw.headers, principal }))
 */
export function rateLimitClientKey(key: RateLimitSpec['key'], subject: RateLimitSubject): string {
  const byIp = `ip:${subject.ip}`;
  const principal = subject.principal;
  if (key === 'ip') return byIp;
  if (key === 'api-key' || key === 'principal') {
    if (!principal) return byIp;
    const scheme = field(principal, 'scheme');
    if (scheme === 'api-key')
      return `api-key:${String(field(principal, 'account'))}#${String(field(principal, 'keyIndex'))}`;
    if (key === 'api-key') return byIp;
    if (scheme === 'bearer' && typeof field(principal, 'subject') === 'string')
      return `sub:${String(field(principal, 'subject'))}`;
    if (scheme === 'basic' && typeof field(principal, 'username') === 'string')
      return `user:${String(field(principal, 'username'))}`;
    return byIp;
  }
  const value = subject.headers.get(key.header);
  return value ? `header:${value.slice(0, MAX_HEADER_KEY_LENGTH)}` : byIp;
}

function field(obj: JsonObject, name: string): Json | undefined {
  return Object.hasOwn(obj, name) ? obj[name] : undefined;
}
