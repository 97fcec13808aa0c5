/**
 * Connector `redis`: the operations integrations use on a Redis server of theirs — get/set with
 * expiry, delete, increment, expire, hashes, lists, publish — over the account's client
 * (client.ts). Which parameters each operation takes is data in schema.json (`allOf` of
 * `if`/`then`), checked at build time; `run` checks again only what `{{ }}` computed.
 *
 * Values: a string is stored as it is, any other JSON value as its JSON text; reading with
 * `as: "json"` parses it back. Output: an object describing what happened (README.md lists it per
 * operation). Failures are PipeErrors with the kinds of schema.json `x-pipe-errors`.
 */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, Json, JsonObject } from '../../types.js';
import { slowFailure } from '../../connections/connection-account.js';
import { redisClient, redisFailure, type RedisHandle } from './client.js';

export type RedisOperation =
  | 'get'
  | 'set'
  | 'delete'
  | 'increment'
  | 'expire'
  | 'hash-get'
  | 'hash-set'
  | 'hash-get-all'
  | 'hash-delete'
  | 'list-push'
  | 'list-pop'
  | 'list-range'
  | 'publish';

export interface RedisParams {
  operation: RedisOperation;
  account: string;
  accountFields?: Readonly<Record<string, Json>>;
  key?: string;
  keys?: string[];
  value?: Json;
  values?: Json[];
  expire?: number;
  'only-if-absent'?: boolean;
  by?: number;
  field?: string;
  fields?: JsonObject | string[];
  end?: 'left' | 'right';
  start?: number;
  stop?: number;
  channel?: string;
  message?: Json;
  as?: 'text' | 'json';
  timeout?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;

function invalid(message: string): PipeError {
  return new PipeError(`redis: ${message}`, { code: 400, kind: 'INVALID_PARAMETER', step: 'redis' });
}

function keyOf(params: RedisParams): string {
  const key = params.key;
  if (typeof key !== 'string' || key.length === 0 || key.length > 1024) {
    throw invalid('`key` must be a non-empty string of at most 1024 characters');
  }
  return key;
}

/** What Redis stores for a JSON value: strings as they are, the rest as JSON text. */
export function encodeValue(value: Json | undefined): string {
  if (value === undefined) throw invalid('a value is missing');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function decodeValue(value: string | null, as: 'text' | 'json' | undefined, where: string): Json {
  if (value === null || as !== 'json') return value;
  try {
    return JSON.parse(value) as Json;
  } catch {
    const why = `${where}: a stored value is not JSON (as: "json")`;
    throw new PipeError(why, { code: 502, kind: 'VALUE_NOT_JSON', step: 'redis' });
  }
}

function integer(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(`\`${name}\` must be an integer`);
  return value;
}

/** One operation on the client; returns the step's output. */
async function perform(params: RedisParams, message: Json, { client, where }: RedisHandle): Promise<JsonObject> {
  switch (params.operation) {
    case 'get': {
      const key = keyOf(params);
      const value = await client.get(key);
      return { key, value: decodeValue(value, params.as, where), found: value !== null };
    }
    case 'set': {
      const key = keyOf(params);
      const value = encodeValue(params.value);
      const expire = params.expire === undefined ? undefined : integer(params.expire, 'expire', 0);
      if (expire !== undefined && expire < 1) throw invalid('`expire` must be at least 1 ms');
      const onlyIfAbsent = params['only-if-absent'] === true;
      const reply =
        expire !== undefined
          ? onlyIfAbsent
            ? await client.set(key, value, 'PX', expire, 'NX')
            : await client.set(key, value, 'PX', expire)
          : onlyIfAbsent
            ? await client.set(key, value, 'NX')
            : await client.set(key, value);
      return { key, stored: reply === 'OK' };
    }
    case 'delete': {
      const keys = params.keys ?? [keyOf(params)];
      if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string' || k.length === 0)) {
        throw invalid('`keys` must be non-empty strings');
      }
      return { deleted: await client.del(...keys) };
    }
    case 'increment': {
      const key = keyOf(params);
      return { key, value: await client.incrby(key, integer(params.by, 'by', 1)) };
    }
    case 'expire': {
      const key = keyOf(params);
      const expire = integer(params.expire, 'expire', 0);
      if (expire < 1) throw invalid('`expire` must be at least 1 ms');
      return { key, updated: (await client.pexpire(key, expire)) === 1 };
    }
    case 'hash-get': {
      const key = keyOf(params);
      if (typeof params.field !== 'string' || params.field.length === 0) {
        throw invalid('`field` must be a non-empty string');
      }
      const value = await client.hget(key, params.field);
      return { key, field: params.field, value: decodeValue(value, params.as, where), found: value !== null };
    }
    case 'hash-set': {
      const key = keyOf(params);
      const fields = params.fields;
      if (!fields || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0) {
        throw invalid('`fields` must be an object with at least one field');
      }
      const flat: string[] = [];
      for (const [name, value] of Object.entries(fields)) flat.push(name, encodeValue(value));
      return { key, added: await client.hset(key, ...flat) };
    }
    case 'hash-get-all': {
      const key = keyOf(params);
      const all = await client.hgetall(key);
      const fields: JsonObject = Object.create(null) as JsonObject;
      for (const [name, value] of Object.entries(all)) {
        // A field named __proto__ is data: defined, never assigned.
        const decoded = decodeValue(value, params.as, where);
        Object.defineProperty(fields, name, { value: decoded, enumerable: true, writable: true, configurable: true });
      }
      return { key, fields, found: Object.keys(all).length > 0 };
    }
    case 'hash-delete': {
      const key = keyOf(params);
      const fields = params.fields;
      if (!Array.isArray(fields) || fields.length === 0 || fields.some((f) => typeof f !== 'string')) {
        throw invalid('`fields` must be an array of field names');
      }
      return { key, deleted: await client.hdel(key, ...fields) };
    }
    case 'list-push': {
      const key = keyOf(params);
      if (!Array.isArray(params.values) || params.values.length === 0) {
        throw invalid('`values` must be a non-empty array');
      }
      const values = params.values.map(encodeValue);
      const length = params.end === 'left' ? await client.lpush(key, ...values) : await client.rpush(key, ...values);
      return { key, length };
    }
    case 'list-pop': {
      const key = keyOf(params);
      const value = params.end === 'left' ? await client.lpop(key) : await client.rpop(key);
      return { key, value: decodeValue(value, params.as, where), found: value !== null };
    }
    case 'list-range': {
      const key = keyOf(params);
      const values = await client.lrange(key, integer(params.start, 'start', 0), integer(params.stop, 'stop', -1));
      return { key, values: values.map((v) => decodeValue(v, params.as, where)) };
    }
    case 'publish': {
      const channel = params.channel;
      if (typeof channel !== 'string' || channel.length === 0) throw invalid('`channel` must be a non-empty string');
      const published = params.message === undefined ? message : params.message;
      const receivers = await client.publish(channel, encodeValue(published));
      return { channel, receivers };
    }
    default:
      throw invalid(`unknown operation "${String(params.operation)}"`);
  }
}

/** Rejects with TIMEOUT when `work` takes longer than `ms` (the command may still run on the server). */
function within<T>(work: Promise<T>, ms: number, where: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const why = `${where} did not answer within ${ms} ms`;
    timer = setTimeout(() => reject(new PipeError(why, { code: 504, kind: 'TIMEOUT', step: 'redis' })), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export const run: ConnectorRun<RedisParams> = async (params, message, ctx) => {
  const timeoutMs = integer(params.timeout, 'timeout', DEFAULT_TIMEOUT_MS);
  const { connections } = ctx.services;
  // Calls go through the server's circuit breaker: after consecutive timeouts, fail at once (CIRCUIT_OPEN).
  return connections.guard(
    `redis:${params.account}`,
    async () => {
      let handle: RedisHandle | undefined;
      try {
        const opening = redisClient(connections, params.account, params.accountFields, timeoutMs);
        handle = await within(opening, timeoutMs, 'Redis');
        return await within(perform(params, message, handle), timeoutMs, handle.where);
      } catch (err) {
        throw redisFailure(err, handle?.where ?? 'Redis');
      }
    },
    { failed: slowFailure },
  );
};
