/**
 * Fault injection (issue 18): built services as child processes, on the embedded backend (SQLite)
 * and on PostgreSQL + NATS, while events flow — POST /events publishes, the `record` subscriber
 * writes one document per handling (fixtures/app/chaos.pipe).
 *
 * - link cuts: a TCP proxy of the suite's own between the service and NATS, and between the
 *   service and PostgreSQL, cut for 5 s, 30 s and a long cut (PIPEC_CHAOS_LONG_CUT_MS, default
 *   15 s; `npm run chaos` uses 120 s) during a steady stream of publishes; /ready must answer 503
 *   throughout each cut, and nothing may be dead-lettered merely because of the outage;
 * - SIGKILL of the service 5 times while 1,000 events flow, with 1 and 2 replicas;
 * - poison: permanent failures (dead-lettered with their payload), NUL strings and oversize
 *   payloads (refused at publish, never answered 2xx);
 * - a consumer down past its `expiration` (its events end in the dead letters).
 *
 * For every scenario: accepted (answered 2xx) events minus handled-at-least-once minus
 * dead-lettered must be empty (lost = 0); duplicates are counted and reported. Every scenario is
 * bounded (deadlines on sending and draining, and the test timeout). The table of results is
 * printed at the end (and written to PIPEC_CHAOS_RESULTS when set, for `npm run chaos`).
 * CI=true fails when PostgreSQL or NATS is unreachable; elsewhere the suite is skipped, saying so.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { IN_CI, NATS_URL, PG_URL, reachable, removeNatsStreams } from '../support/servers.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { runCli, tempDir } from '../e2e/service-process.js';
import {
  account,
  deadLettersOf,
  drain,
  flow,
  formatTable,
  handledOf,
  HANDLED_STORE,
  post,
  ReadyWatch,
  ServiceProcess,
  sleep,
  steadyStream,
  Tally,
  type Outcome,
  type ScenarioResult,
} from './harness.js';

const RUN_ID = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const LONG_CUT_MS = Number(process.env['PIPEC_CHAOS_LONG_CUT_MS'] ?? 15_000);
if (!Number.isInteger(LONG_CUT_MS) || LONG_CUT_MS < 1000) {
  throw new Error('PIPEC_CHAOS_LONG_CUT_MS must be an integer ≥ 1000');
}
const CUTS_MS = [5_000, 30_000, LONG_CUT_MS];
/** Events sent per second during a cut scenario. */
const STREAM_EVERY_MS = 100;
const KILL_EVENTS = 1000;
const KILLS = 5;
/** After the last event was handled: longer than the subscriber's max-timeout (5 s), for redeliveries to show. */
const SETTLE_MS = 6000;

const [pgUp, natsUp] = await Promise.all([reachable(PG_URL, 5432), reachable(NATS_URL, 4222)]);
if (IN_CI && (!pgUp || !natsUp)) {
  throw new Error(`CI=true requires PostgreSQL (${PG_URL}) and NATS (${NATS_URL}) for the chaos suite`);
}
if (!pgUp || !natsUp) console.warn('[chaos.test] skipped: PostgreSQL or NATS unreachable');

type BackendName = ScenarioResult['backend'];

/** How the services of one scenario reach their backends, and where its events end up. */
interface Backend {
  readonly name: BackendName;
  env(replica: number): Record<string, string>;
  readonly where: { readonly dataDir: string } | { readonly postgres: string };
  cleanup(): Promise<void>;
}

function backendFor(name: BackendName, key: string, via: { nats?: TcpProxy; postgres?: TcpProxy } = {}): Backend {
  const root = tempDir(`chaos-${key}`);
  if (name === 'embedded') {
    // Replicas share the SQLite file, as processes on one machine do.
    const dataDir = path.join(root, 'data');
    return {
      name,
      env: () => ({ PIPEC_DATA_DIR: dataDir }),
      where: { dataDir },
      cleanup: async () => fs.rmSync(root, { recursive: true, force: true }),
    };
  }
  const stream = `PIPEC_CHAOS_${RUN_ID}_${key}`.replace(/[^A-Za-z0-9_]/g, '_');
  return {
    name,
    env: (replica) => ({
      PIPEC_DATA_DIR: path.join(root, `data-${replica}`),
      PIPEC_STORE: via.postgres ? via.postgres.url(PG_URL) : PG_URL,
      PIPEC_BROKER: via.nats ? via.nats.url(NATS_URL) : NATS_URL,
      PIPEC_NATS_STREAM: stream,
      PIPEC_NATS_SUBJECT_PREFIX: `pipecchaos.${RUN_ID}.${key}`.replace(/[^A-Za-z0-9_.]/g, '_'),
    }),
    where: { postgres: PG_URL },
    cleanup: async () => {
      await removeNatsStreams(stream).catch(() => undefined);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

async function waitReady(service: ServiceProcess, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`${service.url}/ready`, { signal: AbortSignal.timeout(2000) })).status === 200) return;
    } catch {
      // not answering yet
    }
    if (Date.now() > deadline) {
      throw new Error(`${service.name} not ready within ${ms} ms:\n${service.logs().slice(-4000)}`);
    }
    await sleep(100);
  }
}

/** Reads where a scenario's events ended, the dead letters through a running service. */
const reader =
  (backend: Backend, run: string, event: string, service: () => ServiceProcess) => async (): Promise<Outcome> => ({
    handled: await handledOf(run, backend.where),
    deadLettered: await deadLettersOf(service().url, event, run),
  });

/** One scenario at a time for the CPU-heavy ones (kills, poison, expiry); the cuts run beside them. */
let serial: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const next = serial.then(fn, fn);
  serial = next.catch(() => undefined);
  return next;
}

describe.runIf((pgUp && natsUp) || IN_CI)('fault injection: nothing accepted is lost', () => {
  const results: ScenarioResult[] = [];
  const runs: string[] = [];
  let appOut = '';
  let lateOut = '';
  const dir = tempDir('chaos-build');

  beforeAll(async () => {
    for (const [name, set] of [
      ['app', (o: string) => (appOut = o)],
      ['late', (o: string) => (lateOut = o)],
    ] as const) {
      const out = path.join(dir, `${name}-out`);
      const built = await runCli(['build', path.join(import.meta.dirname, 'fixtures', name), '--out', out]);
      if (built.code !== 0) throw new Error(`building fixtures/${name} failed:\n${built.output.err.join('\n')}`);
      set(out);
    }
  }, 120_000);

  afterAll(async () => {
    const group = (r: ScenarioResult): number =>
      r.scenario.includes('cut') ? 0 : r.scenario.startsWith('SIGKILL') ? 1 : 2;
    const order = (r: ScenarioResult): string => `${group(r)}${r.scenario}${r.backend}${r.replicas}`;
    const sorted = [...results].sort((a, b) => order(a).localeCompare(order(b), 'en', { numeric: true }));
    const table = formatTable(sorted);
    console.log(`\nfault injection (long cut ${LONG_CUT_MS / 1000} s)\n${table}\n`);
    const file = process.env['PIPEC_CHAOS_RESULTS'];
    if (file) fs.writeFileSync(file, JSON.stringify({ longCutMs: LONG_CUT_MS, table, results: sorted }, null, 2));
    if (pgUp && runs.length > 0) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      const remove = "DELETE FROM pipec_documents WHERE store = $1 AND doc->>'run' = ANY($2)";
      await client.query(remove, [HANDLED_STORE, runs]);
      await client.end();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Adds the scenario's row to the table (before its checks, so a failing one shows too); returns the lost events. */
  const record = (
    scenario: { readonly name: string; readonly backend: BackendName; readonly replicas: number; started: number },
    accepted: ReadonlySet<number>,
    outcome: Outcome,
    ready503DuringCut: boolean | null,
  ): number[] => {
    const { lost, duplicates, handledDistinct } = account(accepted, outcome);
    results.push({
      scenario: scenario.name,
      backend: scenario.backend,
      replicas: scenario.replicas,
      accepted: accepted.size,
      handled: handledDistinct,
      deadLettered: outcome.deadLettered.length,
      lost: lost.length,
      duplicates,
      ready503DuringCut,
      seconds: Math.round((Date.now() - scenario.started) / 1000),
    });
    return lost;
  };
  const logsOf = (...services: ServiceProcess[]): string => services.map((s) => s.logs().slice(-2500)).join('\n');

  // One test per link and cut length, each with its own proxy and service: they run side by side.
  for (const link of ['nats', 'postgres'] as const) {
    for (const cutMs of CUTS_MS) {
      const title = `cuts the link to ${link} for ${cutMs / 1000} s during a steady stream`;
      it.concurrent(title, { timeout: cutMs + 300_000 }, async ({ expect }) => {
        const target = new URL(link === 'nats' ? NATS_URL : PG_URL);
        const proxy = await startTcpProxy(target.hostname, Number(target.port || (link === 'nats' ? 4222 : 5432)));
        const key = `cut-${link}-${cutMs}`;
        const backend = backendFor('postgres+nats', key, { [link]: proxy });
        const service = new ServiceProcess(key, appOut, backend.env(0));
        try {
          await service.start();
          await waitReady(service, 30_000);
          const watch = new ReadyWatch(() => service.url);
          const started = Date.now();
          const run = `${RUN_ID}-${key}`;
          runs.push(run);
          const tally = new Tally();
          const sending = new AbortController();
          const stream = steadyStream(() => `${service.url}/events`, run, STREAM_EVERY_MS, sending.signal, tally);
          await sleep(2000);
          const from = Date.now();
          proxy.cut();
          await sleep(cutMs);
          const to = Date.now();
          proxy.restore();
          await waitReady(service, 60_000);
          await sleep(2000);
          sending.abort();
          await stream;
          const read = reader(backend, run, 'chaos-event', () => service);
          const outcome = await drain(tally.accepted, read, 120_000, SETTLE_MS);
          const ready503 = watch.was503Throughout(from, to);
          const scenario = { name: `${link} link cut ${cutMs / 1000} s`, backend: backend.name, replicas: 1, started };
          const lost = record(scenario, tally.accepted, outcome, ready503);
          const what = `lost events (answered 2xx, neither handled nor dead-lettered) after a ${cutMs} ms ${link} cut`;
          expect(lost, `${what}; log:\n${logsOf(service)}`).toEqual([]);
          expect(outcome.deadLettered, 'nothing is dead-lettered merely because a backend was away').toEqual([]);
          expect(ready503, `/ready answered 503 throughout the ${cutMs} ms ${link} cut`).toBe(true);
          expect(tally.accepted.size).toBeGreaterThan(0);
          await watch.stop();
          expect(service.crashes).toEqual([]);
        } finally {
          await service.stop();
          await proxy.close();
          await backend.cleanup();
        }
      });
    }
  }

  for (const name of ['embedded', 'postgres+nats'] as const) {
    for (const replicas of [1, 2]) {
      const title = `SIGKILLs a service ${KILLS} times while ${KILL_EVENTS} events flow: ${name}, ${replicas} replica(s)`;
      it.concurrent(title, { timeout: 900_000 }, ({ expect }) =>
        oneAtATime(async () => {
          const started = Date.now();
          const key = `kill-${name === 'embedded' ? 'sqlite' : 'nats'}-${replicas}`;
          const run = `${RUN_ID}-${key}`;
          runs.push(run);
          const backend = backendFor(name, key);
          const services = Array.from(
            { length: replicas },
            (_, i) => new ServiceProcess(`${key}-${i}`, appOut, backend.env(i)),
          );
          try {
            for (const s of services) await s.start();
            const tally = new Tally();
            let turn = 0;
            const target = (): string | null => {
              const up = services.filter((s) => s.running);
              return up.length === 0 ? null : (up[turn++ % up.length]?.url ?? null);
            };
            let flowing = true;
            let kills = 0;
            const killer = (async () => {
              for (let k = 0; k < KILLS; k++) {
                const at = Math.round(((k + 1) * KILL_EVENTS) / (KILLS + 1));
                while (flowing && tally.accepted.size < at) await sleep(10);
                const victim = services[k % replicas];
                if (!victim) continue;
                await victim.kill();
                kills += 1;
                await victim.start();
              }
            })();
            await flow(target, run, KILL_EVENTS, 8, tally, 300_000);
            flowing = false;
            await killer;
            for (const s of services) await waitReady(s, 30_000);
            const read = reader(backend, run, 'chaos-event', () => services[0] as ServiceProcess);
            const outcome = await drain(tally.accepted, read, 120_000, SETTLE_MS);
            const events = KILL_EVENTS.toLocaleString('en');
            const scenario = { name: `SIGKILL ×${KILLS} during ${events} events`, backend: name, replicas, started };
            const lost = record(scenario, tally.accepted, outcome, null);
            expect(kills).toBe(KILLS);
            expect(tally.accepted.size).toBeGreaterThanOrEqual(KILL_EVENTS);
            const what = 'lost events (answered 2xx, neither handled nor dead-lettered)';
            expect(lost, `${what}; log:\n${logsOf(...services)}`).toEqual([]);
            expect(outcome.deadLettered).toEqual([]);
            expect(services.flatMap((s) => s.crashes)).toEqual([]);
          } finally {
            await Promise.all(services.map((s) => s.stop()));
            await backend.cleanup();
          }
        }),
      );
    }
  }

  for (const name of ['embedded', 'postgres+nats'] as const) {
    const title = `poison: dead-letters permanent failures with their payload, refuses NUL and oversize: ${name}`;
    it.concurrent(title, { timeout: 900_000 }, ({ expect }) =>
      oneAtATime(async () => {
        const started = Date.now();
        const key = `poison-${name === 'embedded' ? 'sqlite' : 'nats'}`;
        const run = `${RUN_ID}-${key}`;
        runs.push(run);
        const backend = backendFor(name, key);
        const service = new ServiceProcess(key, appOut, backend.env(0));
        try {
          await service.start();
          const tally = new Tally();
          const refusals: Array<{ kind: string; status: number | string }> = [];
          const poison = new Set<number>();
          for (let n = 0; n < 135; n++) {
            if (n < 100) tally.note(n, await post(`${service.url}/events`, { run, n }));
            else if (n < 120) {
              poison.add(n);
              tally.note(n, await post(`${service.url}/events`, { run, n, poison: true }));
            } else if (n < 130) {
              const status = await post(`${service.url}/events`, { run, n, text: `nul\u0000inside` });
              refusals.push({ kind: 'NUL', status });
              tally.note(n, status);
            } else {
              const status = await post(`${service.url}/events`, { run, n, blob: 'x'.repeat(1_000_000) });
              refusals.push({ kind: 'oversize', status });
              tally.note(n, status);
            }
          }
          const outcome = await drain(
            tally.accepted,
            reader(backend, run, 'chaos-event', () => service),
            60_000,
            1000,
          );
          const scenario = { name: 'poison (permanent failures, NUL, oversize)', backend: name, replicas: 1, started };
          const lost = record(scenario, tally.accepted, outcome, null);
          expect(lost, `lost events; log:\n${logsOf(service)}`).toEqual([]);
          expect(refusals.filter((r) => r.kind === 'NUL').map((r) => r.status)).toEqual(Array(10).fill(422));
          expect(refusals.filter((r) => r.kind === 'oversize').map((r) => r.status)).toEqual(Array(5).fill(413));
          expect(tally.accepted.size).toBe(120);
          expect(outcome.deadLettered.map((d) => d.n).sort((a, b) => a - b)).toEqual([...poison]);
          for (const letter of outcome.deadLettered) {
            expect(letter).toMatchObject({ reason: 'permanent-error', payload: { run, n: letter.n, poison: true } });
          }
          expect(outcome.handled.filter((n) => poison.has(n))).toEqual([]);
          expect(service.crashes).toEqual([]);
        } finally {
          await service.stop();
          await backend.cleanup();
        }
      }),
    );
  }

  for (const name of ['embedded', 'postgres+nats'] as const) {
    const title = `a consumer down past its expiration finds its events in the dead letters: ${name}`;
    it.concurrent(title, { timeout: 900_000 }, ({ expect }) =>
      oneAtATime(async () => {
        const started = Date.now();
        const key = `expiry-${name === 'embedded' ? 'sqlite' : 'nats'}`;
        const run = `${RUN_ID}-${key}`;
        runs.push(run);
        const backend = backendFor(name, key);
        const app = new ServiceProcess(`${key}-app`, appOut, backend.env(0));
        const late = new ServiceProcess(`${key}-late`, lateOut, backend.env(1));
        try {
          await app.start();
          // The consumer subscribes once (its durable subscription then keeps events for it), and goes away.
          await late.start();
          await waitReady(late, 30_000);
          await late.kill();
          const tally = new Tally();
          for (let n = 0; n < 20; n++) tally.note(n, await post(`${app.url}/late`, { run, n }));
          await sleep(3000);
          await late.start();
          const outcome = await drain(
            tally.accepted,
            reader(backend, run, 'chaos-late', () => late),
            60_000,
            1000,
          );
          const scenario = { name: 'consumer down past expiration', backend: name, replicas: 1, started };
          const lost = record(scenario, tally.accepted, outcome, null);
          expect(tally.accepted.size).toBe(20);
          expect(lost, `lost events; logs:\n${logsOf(app, late)}`).toEqual([]);
          expect(outcome.deadLettered.map((d) => d.reason)).toEqual(Array(20).fill('expired'));
          expect([...app.crashes, ...late.crashes]).toEqual([]);
        } finally {
          await Promise.all([app.stop(), late.stop()]);
          await backend.cleanup();
        }
      }),
    );
  }
});
