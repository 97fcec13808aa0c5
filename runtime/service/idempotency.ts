/**
 * Idempotent triggers: an execution whose trigger declares `idempotency-key` runs once per key
 * within the window. The first execution with a key claims it in the Object Store (a document
 * whose `_oId` is a hash of the pipeline and the key, so the store's unique id decides a race —
 * across replicas when the store is shared: PostgreSQL, or one SQLite file); when it ends well its
 * answer is kept with the claim. A repeat within the window gets that answer without running
 * (HTTP: the same status, body and headers, plus `idempotent-replayed: true`; an event: acknowledged
 * without running). A repeat while the first still runs is refused with 409 IDEMPOTENCY_IN_PROGRESS
 * and Retry-After (not permanent: an event comes back later). A failed execution gives its key
 * back, so a retry runs again. A claim older than `staleMs` (its replica died mid-run) is taken over.
 */
import { createHash } from 'node:crypto';
import { PipeError } from '../errors.js';
import { Reply, type ExecutionContext, type Json, type JsonObject, type ObjectStoreBackend } from '../types.js';

/** What a trigger's compile part writes into its spec as `idempotency`. */
export interface IdempotencySpec {
  /** The key of a message (header value or expression); null/empty: the execution is not deduplicated. */
  readonly key: (message: Json, ctx: ExecutionContext) => Json;
  /** How long a key is remembered, ms. */
  readonly windowMs: number;
}

/** The Object Store collection of claims (one per service's store; the pipeline is in the id). */
export const IDEMPOTENCY_STORE = 'pipec_idempotency';

/** Longest key kept (hashed anyway; a longer one is refused as a client mistake). */
const MAX_KEY_LENGTH = 1024;

interface Claim {
  readonly _oId: string;
  readonly state: 'running' | 'done';
  readonly at: number;
  readonly answer?: JsonObject;
}

export interface IdempotencyDeps {
  readonly store: ObjectStoreBackend;
  readonly now: () => number;
  /** A claim older than this (ms) is abandoned: its execution cannot still be running. */
  readonly staleMs: number;
  /** Told when a repeat is answered from the first answer (metrics). */
  readonly replayed: () => void;
}

/** The key as text, or undefined when the message has none. */
export function keyText(value: Json): string | undefined {
  if (value === null || value === '') return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length > MAX_KEY_LENGTH) {
    throw new PipeError(`the idempotency key is longer than ${MAX_KEY_LENGTH} characters`, {
      code: 400,
      kind: 'BAD_IDEMPOTENCY_KEY',
    });
  }
  return text;
}

/** The claim's id: the key never reaches the store as it is (it may carry client data). */
export function claimId(pipeline: string, key: string): string {
  return createHash('sha256').update(pipeline).update('\u0000').update(key).digest('hex');
}

/** Runs `start` once per key within the window; see the module comment. */
export async function runIdempotent(
  spec: IdempotencySpec,
  pipeline: string,
  message: Json,
  ctx: ExecutionContext,
  deps: IdempotencyDeps,
  start: () => Json | Reply | Promise<Json | Reply>,
): Promise<Json | Reply> {
  const key = keyText(spec.key(message, ctx) ?? null);
  if (key === undefined) return start();
  const id = claimId(pipeline, key);
  const earlier = await claim(id, spec.windowMs, deps);
  if (earlier) {
    deps.replayed();
    return fromAnswer(earlier);
  }
  let outcome: Json | Reply;
  try {
    outcome = await start();
  } catch (err) {
    // Failed: the key is given back, so the client's (or the broker's) retry runs again.
    await deps.store.delete(IDEMPOTENCY_STORE, { _oId: id }).catch(() => undefined);
    throw err;
  }
  const done = { $set: { state: 'done', answer: toAnswer(outcome) } };
  await deps.store.update(IDEMPOTENCY_STORE, { _oId: id }, done).catch((err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    ctx.log.warn({ err: reason }, 'idempotency: could not keep the answer; a repeat will run again');
    return deps.store.delete(IDEMPOTENCY_STORE, { _oId: id }).catch(() => 0);
  });
  return outcome;
}

/**
 * Claims the key. Returns the first answer when the key was already answered within the window;
 * undefined when this execution now holds the claim; throws 409 while another execution holds it.
 */
async function claim(id: string, windowMs: number, deps: IdempotencyDeps): Promise<JsonObject | undefined> {
  for (let tries = 0; tries < 3; tries++) {
    const now = deps.now();
    try {
      const ttl = { expireAfterSeconds: Math.ceil(windowMs / 1000) };
      await deps.store.insert(IDEMPOTENCY_STORE, [{ _oId: id, state: 'running', at: now }], ttl);
      return undefined;
    } catch (err) {
      if (!(err instanceof PipeError) || err.kind !== 'DUPLICATE_KEY') throw err;
    }
    const existing = (await deps.store.findById(IDEMPOTENCY_STORE, id)) as Claim | null;
    if (existing === null) continue; // expired or given back in between: claim again
    const age = now - existing.at;
    if (age >= windowMs || (existing.state === 'running' && age >= deps.staleMs)) {
      // Outside the window (not yet swept), or abandoned by a replica that died: start over.
      await deps.store.delete(IDEMPOTENCY_STORE, { _oId: id, at: existing.at });
      continue;
    }
    if (existing.state === 'done' && existing.answer) return existing.answer;
    throw new PipeError('a request with this idempotency key is still being handled; try again later', {
      code: 409,
      kind: 'IDEMPOTENCY_IN_PROGRESS',
      permanent: false,
      details: { retryAfter: 1 },
    });
  }
  throw new PipeError('the idempotency key could not be claimed; try again later', {
    code: 503,
    kind: 'IDEMPOTENCY_IN_PROGRESS',
    details: { retryAfter: 1 },
  });
}

function toAnswer(outcome: Json | Reply): JsonObject {
  if (outcome instanceof Reply) {
    return { reply: { status: outcome.status, body: outcome.body, headers: { ...outcome.headers } } };
  }
  return { result: outcome };
}

/** The kept answer as the pipeline gave it, marked as a replay. */
function fromAnswer(answer: JsonObject): Json | Reply {
  const reply = answer['reply'];
  if (reply !== null && typeof reply === 'object' && !Array.isArray(reply)) {
    const kept = reply['headers'];
    const isMap = kept !== null && typeof kept === 'object' && !Array.isArray(kept);
    const headers = isMap ? (kept as Record<string, string>) : {};
    return new Reply(Number(reply['status']), reply['body'] ?? null, { ...headers, 'idempotent-replayed': 'true' });
  }
  return answer['result'] ?? null;
}
