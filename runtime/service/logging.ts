/**
 * Structured JSON logs (pino). Every execution logs through a child logger carrying
 * `{ executionId, pipeline }`. Credentials never reach the output: known secret-bearing paths are
 * redacted, and account values are masked out of free text (the `log` connector uses
 * `maskSecrets`).
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export const REDACTED = '[REDACTED]';

/** Paths pino removes from every line, whatever the caller logs. */
export const REDACT_PATHS: readonly string[] = [
  'authorization', 'cookie', 'password', 'secret', 'apiKey', 'accounts',
  'headers.authorization', 'headers.cookie', 'headers["set-cookie"]', 'headers["x-api-key"]',
  'headers["proxy-authorization"]',
  '*.authorization', '*.cookie', '*.password', '*.secret', '*.accounts',
  '*.headers.authorization', '*.headers.cookie', '*.headers["set-cookie"]', '*.headers["x-api-key"]',
  '*.headers["proxy-authorization"]',
];

export interface LoggerOptions {
  readonly level?: string;
  readonly service?: string;
  /** Where lines go (tests pass a stream that collects them); default stdout. */
  readonly destination?: DestinationStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const options = {
    level: opts.level ?? 'info',
    base: opts.service ? { service: opts.service } : {},
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** Collects string values of the accounts that are worth masking (short values would mask noise). */
export function secretValues(accounts: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string[] {
  const values = new Set<string>();
  for (const fields of Object.values(accounts)) {
    for (const v of Object.values(fields)) {
      if (typeof v === 'string' && v.length >= 4) values.add(v);
      else if (typeof v === 'number' && String(v).length >= 4) values.add(String(v));
    }
  }
  // Longest first, so a secret containing another is masked whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of a secret value in `text` with the redaction marker. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
