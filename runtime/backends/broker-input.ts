/**
 * Checks shared by both event brokers: event and subscriber names, JSON payloads, header maps and
 * subscribe options. Invalid input is PipeError 400 and nothing is published or registered.
 */
import type { Json } from '../types.js';
import { PipeError } from '../errors.js';
import { assertJson, isPlainObject, validateEventName } from './json-safe.js';

const SUBSCRIBER_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,100}$/;
/** Largest serialized event payload accepted (NATS's default max_payload is 1 MB). */
export const MAX_EVENT_BYTES = 1024 * 1024 - 8 * 1024;

export interface SubscribeOptions {
  readonly maxDeliveries: number;
  readonly ackTimeout: number;
  readonly concurrency: number;
}

/** Validates a publish call and returns the serialized payload. */
export function preparePublish(name: string, payload: Json, headers: Readonly<Record<string, string>> | undefined): { body: string; headers: Record<string, string> } {
  validateEventName(name);
  assertJson(payload, 'event payload', 'BAD_PAYLOAD');
  const body = JSON.stringify(payload);
  if (Buffer.byteLength(body, 'utf8') > MAX_EVENT_BYTES) {
    throw new PipeError(`event payload exceeds ${MAX_EVENT_BYTES} bytes`, { code: 413, kind: 'PAYLOAD_TOO_LARGE' });
  }
  return { body, headers: checkHeaders(headers ?? {}) };
}

function checkHeaders(headers: unknown): Record<string, string> {
  if (!isPlainObject(headers)) throw new PipeError('event headers must be an object of strings', { code: 400, kind: 'BAD_HEADERS' });
  const out: Record<string, string> = {};
  for (const key of Object.keys(headers)) {
    const value = headers[key];
    if (!HEADER_NAME.test(key) || typeof value !== 'string' || value.length > 4096 || /[\r\n]/.test(value)) {
      throw new PipeError(`invalid event header ${JSON.stringify(key.slice(0, 80))}`, { code: 400, kind: 'BAD_HEADERS' });
    }
    Object.defineProperty(out, key.toLowerCase(), { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function validateSubscribe(subscriber: string, event: string, opts: SubscribeOptions): void {
  validateEventName(event);
  if (typeof subscriber !== 'string' || !SUBSCRIBER_NAME.test(subscriber)) {
    throw new PipeError(`invalid subscriber name ${JSON.stringify(String(subscriber).slice(0, 80))}`, { code: 400, kind: 'BAD_SUBSCRIBER' });
  }
  const positive = (n: number): boolean => Number.isInteger(n) && n >= 1;
  if (!positive(opts.maxDeliveries) || !positive(opts.ackTimeout) || !positive(opts.concurrency)) {
    throw new PipeError('maxDeliveries, ackTimeout and concurrency must be positive integers', { code: 400, kind: 'BAD_SUBSCRIBE' });
  }
}

/** A short, loggable description of a handler failure (no payloads). */
export function failureText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, 500);
}
