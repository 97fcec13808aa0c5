/**
 * The fault-injection suite's tools: built services as child processes that can be SIGKILLed and
 * started again, HTTP senders (a steady stream, or a flow of N accepted events), a watcher of
 * `/ready`, and the count of what became of every accepted event — handled (a document in the
 * Object Store, one per handling) or dead-lettered (read through the admin endpoint) — on the
 * embedded backend (SQLite file) and on PostgreSQL + NATS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PG_URL } from '../support/servers.js';
import { freePort } from '../support/ports.js';

export const ADMIN_KEY = 'chaos-admin-key-0123456789abcdef';
export const HANDLED_STORE = 'handled';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One process of a built service; `start()` may be called again after `kill()` or `stop()`. */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  private output = '';
  private exitExpected = false;
  private port = 0;
  /** Exits nobody asked for (a crash), with the end of the process's output. */
  readonly crashes: string[] = [];

  constructor(
    readonly name: string,
    private readonly outDir: string,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  logs(): string {
    return this.output;
  }

  /** Spawns `node server.js` on a free port; resolves once /health answers (a taken port: a new one). */
  async start(timeoutMs = 30_000): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      const child = spawn(process.execPath, [path.join(this.outDir, 'server.js')], {
        env: {
          ...process.env,
          LOG_LEVEL: 'warn',
          PIPEC_ADMIN_API_KEY: ADMIN_KEY,
          ...this.env,
          PORT: String(this.port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.child = child;
      this.exitExpected = false;
      let startOutput = '';
      const keep = (d: Buffer): void => {
        const text = d.toString();
        startOutput += text;
        // Bounded: a long scenario must not keep megabytes of log lines.
        this.output = (this.output + text).slice(-200_000);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      child.once('exit', (code, signal) => {
        if (this.exitExpected) return;
        this.crashes.push(`${this.name} exited (${code ?? signal}) unasked:\n${this.output.slice(-4000)}`);
      });
      const deadline = Date.now() + timeoutMs;
      let started = false;
      while (!started) {
        if (child.exitCode !== null || child.signalCode !== null) break;
        try {
          started = (await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2000) })).ok;
        } catch {
          // not listening yet
        }
        if (started) break;
        if (Date.now() > deadline) {
          await this.kill();
          throw new Error(`${this.name} did not start within ${timeoutMs} ms:\n${this.output.slice(-4000)}`);
        }
        await sleep(50);
      }
      if (started) return;
      // It exited while starting: a crash is recorded unless the port was taken meanwhile.
      if (startOutput.includes('EADDRINUSE') && attempt < 5) {
        this.crashes.pop();
        continue;
      }
      throw new Error(`${this.name} exited while starting:\n${this.output.slice(-4000)}`);
    }
  }

  /** SIGKILL: no drain, no goodbye; resolves once the process is gone. */
  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  /** SIGTERM (the service drains), SIGKILL after 10 s. */
  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  private end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    this.exitExpected = true;
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
      if (signal !== 'SIGKILL') setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  }
}

/** What the senders saw: the events answered 2xx, and how many requests got each other answer. */
export class Tally {
  readonly accepted = new Set<number>();
  readonly refused = new Map<string, number>();
  sent = 0;

  note(n: number, status: number | string): void {
    if (typeof status === 'number' && status >= 200 && status < 300) this.accepted.add(n);
    else this.refused.set(String(status), (this.refused.get(String(status)) ?? 0) + 1);
  }
}

export interface ChaosEvent {
  readonly run: string;
  readonly n: number;
  readonly [key: string]: unknown;
}

/** POSTs one event; the status, or the network error's name when there was no answer. */
export async function post(url: string, body: unknown, timeoutMs = 15_000): Promise<number | string> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    return (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
  }
}

/**
 * A steady stream: one event every `everyMs` to `target()`, until `signal` aborts; at most 50
 * requests outstanding. Resolves once the last request answered.
 */
export async function steadyStream(
  target: () => string,
  run: string,
  everyMs: number,
  signal: AbortSignal,
  tally: Tally,
): Promise<void> {
  const outstanding = new Set<Promise<void>>();
  for (let n = 0; !signal.aborted; n++) {
    if (outstanding.size < 50) {
      tally.sent += 1;
      const request: Promise<void> = post(target(), { run, n } satisfies ChaosEvent).then((status) => {
        tally.note(n, status);
        outstanding.delete(request);
      });
      outstanding.add(request);
    }
    await sleep(everyMs);
  }
  await Promise.all(outstanding);
}

/**
 * Sends events (each attempt a new n) from `concurrency` workers to whichever URL `target()` gives
 * (null: none is up, wait) until `count` were accepted or `deadlineMs` passed.
 */
export async function flow(
  target: () => string | null,
  run: string,
  count: number,
  concurrency: number,
  tally: Tally,
  deadlineMs: number,
): Promise<void> {
  let next = 0;
  const deadline = Date.now() + deadlineMs;
  const worker = async (): Promise<void> => {
    while (tally.accepted.size < count && Date.now() < deadline) {
      const url = target();
      if (url === null) {
        await sleep(50);
        continue;
      }
      const n = next++;
      tally.sent += 1;
      const status = await post(`${url}/events`, { run, n } satisfies ChaosEvent, 10_000);
      tally.note(n, status);
      if (typeof status !== 'number') await sleep(20);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
}

/** Polls /ready every 200 ms while running; `during(from, to)` tells whether it was 503 throughout. */
export class ReadyWatch {
  private readonly samples: Array<{ at: number; status: number | string }> = [];
  private readonly stopping = new AbortController();
  private readonly running: Promise<void>;

  constructor(url: () => string) {
    this.running = (async () => {
      while (!this.stopping.signal.aborted) {
        let status: number | string;
        try {
          const res = await fetch(`${url()}/ready`, { signal: AbortSignal.timeout(2000) });
          await res.arrayBuffer();
          status = res.status;
        } catch (err) {
          status = (err as Error).name;
        }
        this.samples.push({ at: Date.now(), status });
        await sleep(200);
      }
    })();
  }

  /**
   * True when, in [from, to), /ready turned 503 within `detectMs` of `from` and answered nothing but
   * 503 from then on. (A backend's loss is noticed when its connections break, at once here.)
   */
  was503Throughout(from: number, to: number, detectMs = 3000): boolean {
    const inCut = this.samples.filter((s) => s.at >= from && s.at < to);
    const first = inCut.findIndex((s) => s.status === 503);
    if (first < 0 || (inCut[first]?.at ?? Infinity) > from + detectMs) return false;
    return inCut.slice(first).every((s) => s.status === 503);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }
}

/** Where one scenario's events end: the backend's Object Store and dead letters. */
export interface Outcome {
  /** Every handling of an event (an n once per handling). */
  readonly handled: number[];
  /** The events in the dead letters, with why. */
  readonly deadLettered: Array<{ n: number; reason: string; payload: unknown }>;
}

/** The documents the subscriber wrote for `run`, one n per handling. */
export async function handledOf(
  run: string,
  where: { readonly dataDir: string } | { readonly postgres: string },
): Promise<number[]> {
  if ('postgres' in where) {
    const client = new pg.Client({ connectionString: where.postgres });
    await client.connect();
    try {
      const rows = await client.query<{ n: number }>(
        "SELECT (doc->>'n')::int AS n FROM pipec_documents WHERE store = $1 AND doc->>'run' = $2",
        [HANDLED_STORE, run],
      );
      return rows.rows.map((r) => r.n);
    } finally {
      await client.end();
    }
  }
  const file = path.join(where.dataDir, 'pipec.db');
  if (!fs.existsSync(file)) return [];
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const rows = db
      .prepare(
        "SELECT json_extract(json(doc), '$.n') AS n FROM pipec_documents " +
          "WHERE store = ? AND json_extract(json(doc), '$.run') = ?",
      )
      .all(HANDLED_STORE, run) as Array<{ n: number }>;
    return rows.map((r) => r.n);
  } finally {
    db.close();
  }
}

/** The dead letters of `event` whose payload belongs to `run`, read through a running service. */
export async function deadLettersOf(serviceUrl: string, event: string, run: string): Promise<Outcome['deadLettered']> {
  const auth = { authorization: `Bearer ${ADMIN_KEY}` };
  const found: Outcome['deadLettered'] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = `${serviceUrl}/_pipec/dead-letters?event=${event}&limit=1000&offset=${offset}`;
    const res = await fetch(page, { headers: auth });
    if (!res.ok) throw new Error(`listing dead letters answered ${res.status}: ${await res.text()}`);
    const summaries = ((await res.json()) as { deadLetters: Array<{ id: string; reason: string }> }).deadLetters;
    for (const summary of summaries) {
      const shown = await fetch(`${serviceUrl}/_pipec/dead-letters/${summary.id}`, { headers: auth });
      const letter = (await shown.json()) as {
        payload: ChaosEvent | null;
      };
      if (letter.payload?.run !== run) continue;
      found.push({ n: letter.payload.n, reason: summary.reason, payload: letter.payload });
    }
    if (summaries.length < 1000) return found;
  }
}

/** One row of the table `npm run chaos` prints. */
export interface ScenarioResult {
  readonly scenario: string;
  readonly backend: 'embedded' | 'postgres+nats';
  readonly replicas: number;
  readonly accepted: number;
  readonly handled: number;
  readonly deadLettered: number;
  readonly lost: number;
  readonly duplicates: number;
  /** Whether /ready answered 503 throughout the cut; null where nothing was cut. */
  readonly ready503DuringCut: boolean | null;
  readonly seconds: number;
}

/** accepted ∖ (handled ∪ dead-lettered), and the handlings beyond the first of each event. */
export function account(
  accepted: ReadonlySet<number>,
  outcome: Outcome,
): { lost: number[]; duplicates: number; handledDistinct: number } {
  const handled = new Set(outcome.handled);
  const dead = new Set(outcome.deadLettered.map((d) => d.n));
  const lost = [...accepted].filter((n) => !handled.has(n) && !dead.has(n)).sort((a, b) => a - b);
  const handledDistinct = [...handled].filter((n) => accepted.has(n)).length;
  return { lost, duplicates: outcome.handled.length - handled.size, handledDistinct };
}

/**
 * Waits until every accepted event was handled or dead-lettered (or `deadlineMs` passed), then
 * `settleMs` more so that redeliveries of events whose acknowledgement was lost show as duplicates.
 */
export async function drain(
  accepted: ReadonlySet<number>,
  read: () => Promise<Outcome>,
  deadlineMs: number,
  settleMs: number,
): Promise<Outcome> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const outcome = await read();
    if (account(accepted, outcome).lost.length === 0 || Date.now() > deadline) break;
    await sleep(250);
  }
  await sleep(settleMs);
  return read();
}

export function formatTable(rows: readonly ScenarioResult[]): string {
  const header = [
    'scenario',
    'backend',
    'replicas',
    'accepted',
    'handled',
    'dead-lettered',
    'lost',
    'duplicates',
    'ready-503-during-cut',
    'seconds',
  ];
  const cells = rows.map((r) => [
    r.scenario,
    r.backend,
    String(r.replicas),
    String(r.accepted),
    String(r.handled),
    String(r.deadLettered),
    String(r.lost),
    String(r.duplicates),
    r.ready503DuringCut === null ? '—' : r.ready503DuringCut ? 'yes' : 'NO',
    String(r.seconds),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string => `| ${c.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export { PG_URL };
