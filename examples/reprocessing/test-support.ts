/**
 * Test support shared by the reprocessing and error-handling example suites: the two backend
 * configurations (embedded SQLite; PostgreSQL + NATS JetStream), each run isolated — a PostgreSQL
 * schema of its own (through the connection's search_path) and a NATS stream and subject prefix of
 * its own — so runs never see each other's documents or events; a logger whose records tests read;
 * and polling helpers. Unreachable servers skip the distributed run with a message, or fail it
 * when CI=true.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino, { type Logger } from 'pino';

import { IN_CI, NATS_URL, PG_URL, reachable, removeNatsStreams } from '../../test/support/servers.js';

export { IN_CI, NATS_URL, PG_URL };
const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

export interface BackendVariant {
  readonly name: 'sqlite' | 'postgres+nats';
  /** Register the suite (false: skipped with a console message). */
  readonly run: boolean;
  /** Servers that did not answer (the suite fails on them under CI). */
  readonly missing: readonly string[];
}

/** Both configurations; the distributed one runs when its servers answer, and always under CI. */
export async function backendVariants(suite: string): Promise<BackendVariant[]> {
  const [postgresUp, natsUp] = await Promise.all([reachable(PG_URL, 5432), reachable(NATS_URL, 4222)]);
  const missing = [postgresUp ? null : `PostgreSQL (${PG_URL})`, natsUp ? null : `NATS (${NATS_URL})`].filter(
    (m): m is string => m !== null,
  );
  if (missing.length > 0 && !IN_CI)
    console.warn(`[${suite}] skipping the postgres+nats run: unreachable ${missing.join(', ')}`);
  return [
    { name: 'sqlite', run: true, missing: [] },
    { name: 'postgres+nats', run: missing.length === 0 || IN_CI, missing },
  ];
}

/** One isolated backend: where the service keeps its data, and how to remove it afterwards. */
export interface IsolatedBackend {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  dispose(): Promise<void>;
}

let isolatedCount = 0;

/** A fresh, empty backend of the variant (the data directory is reused across service restarts). */
export async function isolatedBackend(variant: BackendVariant, tag: string): Promise<IsolatedBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), `pipec-${tag}-`));
  if (variant.name === 'sqlite') {
    return { dataDir, env: {}, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  if (variant.missing.length > 0)
    throw new Error(`CI=true requires the distributed backends; unreachable: ${variant.missing.join(', ')}`);
  const id = `${tag.replace(/[^a-z0-9]/gi, '').toLowerCase()}_${RUN_ID}_${isolatedCount++}`;
  const schema = `pipec_ex_${id}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await admin.end();
  }
  const storeUrl = new URL(PG_URL);
  storeUrl.searchParams.set('options', `-c search_path=${schema}`);
  const stream = `PIPEC_EX_${id.toUpperCase()}`;
  return {
    dataDir,
    env: {
      PIPEC_STORE: storeUrl.toString(),
      PIPEC_BROKER: NATS_URL,
      PIPEC_NATS_STREAM: stream,
      PIPEC_NATS_SUBJECT_PREFIX: `pipecex.${id}`,
    },
    async dispose() {
      const cleaner = new pg.Client({ connectionString: PG_URL });
      await cleaner.connect();
      try {
        await cleaner.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await cleaner.end();
      }
      await removeNatsStreams(stream);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LogRecord {
  readonly level: number;
  readonly msg?: string;
  readonly pipeline?: string;
  readonly [field: string]: unknown;
}

/** A pino logger that keeps its records in memory, for assertions on what a service logged. */
export function capturingLogger(): { logger: Logger; records: () => LogRecord[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, records: () => lines.map((line) => JSON.parse(line) as LogRecord) };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

/** Waits until `read` returns the same value over `quietMs` (work in flight has settled). */
export async function settled<T>(read: () => Promise<T>, quietMs = 400, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = JSON.stringify(await read());
  let since = Date.now();
  for (;;) {
    await sleep(50);
    const value = await read();
    const text = JSON.stringify(value);
    if (text !== last) {
      last = text;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return value;
    }
    if (Date.now() > deadline) throw new Error(`still changing after ${timeoutMs} ms: ${text}`);
  }
}
