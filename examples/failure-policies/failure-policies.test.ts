/**
 * The failure-policies example end to end, in process, against a scripted upstream (a real HTTP
 * server on 127.0.0.1 that fails on a script): retries and their waits (the service's clock records
 * each wait and moves on, so no test sleeps through a backoff), Retry-After, broken connections,
 * slow answers, a 5xx burst opening the circuit breaker, the half-open probe closing it, routing
 * on error kinds, and the idempotency key of a retried POST.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import { createFakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { buildService, ManualClock, postJson } from '../../test/e2e/in-process.js';
import { ScriptedUpstream } from '../../test/support/scripted-upstream.js';

/** A clock whose waits take no time: it records each and moves on by it. */
class PacedClock extends ManualClock {
  readonly waits: number[] = [];
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    this.waits.push(ms);
    this.advance(ms);
  }
}

describe('failure-policies example', () => {
  let upstream: ScriptedUpstream;
  let service: Service;
  const clock = new PacedClock();

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    const built = await buildService([path.join(import.meta.dirname, 'failure-policies.pipe')], 'failure-policies');
    service = await built.runtime.createService(built.definition, {
      backends: createFakeBackends(),
      startTriggers: false,
      dataDir: built.outDir,
      clock,
      env: {
        CRM_URL: upstream.url,
        PIPEC_BREAKER_FAILURES: '6',
        PIPEC_BREAKER_HALF_OPEN_MS: '30000',
        LOG_LEVEL: 'silent',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop(100);
    await upstream?.close();
  });
  afterEach(() => {
    clock.waits.length = 0;
    vi.useRealTimers();
  });

  const get = async (id: string): Promise<{ status: number; body: unknown; headers: Headers }> => {
    const res = await service.app.request(`/customers/${id}`);
    return { status: res.status, body: await res.json(), headers: res.headers };
  };

  it('waits what Retry-After says after a 429, then succeeds', async () => {
    upstream.script('/customers/1', [
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 200, body: { id: 1 } },
    ]);
    expect(await get('1')).toMatchObject({ status: 200, body: { id: 1 } });
    expect(upstream.hits('/customers/1')).toHaveLength(2);
    expect(clock.waits).toEqual([2000]);
  });

  it('retries broken connections with growing, jittered waits', async () => {
    upstream.script('/customers/2', [{ reset: true }, { reset: true }, { status: 200, body: { id: 2 } }]);
    expect(await get('2')).toMatchObject({ status: 200, body: { id: 2 } });
    expect(upstream.hits('/customers/2')).toHaveLength(3);
    // backoff 500ms, multiplier 2: the n-th wait is in the upper half of 500·2^(n-1).
    expect(clock.waits).toHaveLength(2);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(250);
    expect(clock.waits[0]).toBeLessThanOrEqual(500);
    expect(clock.waits[1]).toBeGreaterThanOrEqual(500);
    expect(clock.waits[1]).toBeLessThanOrEqual(1000);
  });

  it('retries an answer slower than the read timeout', async () => {
    upstream.script('/customers/3', [
      { status: 200, body: { late: true }, delayMs: 1500 },
      { status: 200, body: { id: 3 } },
    ]);
    expect(await get('3')).toMatchObject({ status: 200, body: { id: 3 } });
    expect(upstream.hits('/customers/3')).toHaveLength(2);
  });

  it('does not retry a 404 and routes it on its kind', async () => {
    upstream.script('/customers/4', [{ status: 404, body: { error: 'none' } }]);
    expect(await get('4')).toMatchObject({ status: 404, body: { error: 'no such customer' } });
    expect(upstream.hits('/customers/4')).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('a 5xx burst exhausts the attempts, then opens the circuit: calls fail fast with CIRCUIT_OPEN until a probe succeeds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-03-02T10:00:00Z'));
    upstream.script('/customers/5', [{ status: 503, body: { error: 'maintenance' } }]);
    // 4 attempts, each a failure of the CRM's host: the 4th answer is the step's failure.
    expect(await get('5')).toMatchObject({ status: 502, body: { kind: 'REST_SERVER_ERROR' } });
    expect(upstream.hits('/customers/5')).toHaveLength(4);
    // Two more failures reach the threshold (6): the circuit opens during this execution.
    const second = await get('5');
    expect(second).toMatchObject({ status: 503, body: { error: 'the CRM is down; try again later' } });
    expect(second.headers.get('retry-after')).toBe('30');
    expect(upstream.hits('/customers/5')).toHaveLength(6);
    // Open: no request reaches the CRM, for any path of that host.
    upstream.script('/customers/6', [{ status: 200, body: { id: 6 } }]);
    expect(await get('6')).toMatchObject({ status: 503 });
    expect(upstream.hits('/customers/6')).toHaveLength(0);
    expect(await metric(service, 'pipec_circuit_state', `rest ${upstream.url}`)).toBe(2);
    // After half-open-after, one probe goes through; its success closes the circuit.
    vi.setSystemTime(Date.now() + 30_000);
    expect(await get('6')).toMatchObject({ status: 200, body: { id: 6 } });
    expect(await get('6')).toMatchObject({ status: 200 });
    expect(await metric(service, 'pipec_circuit_state', `rest ${upstream.url}`)).toBe(0);
  });

  it('retries a POST with the same idempotency key on every attempt', async () => {
    upstream.script('/customers/7/notes', [{ status: 503 }, { status: 201, body: { note: 'n1' } }]);
    const res = await postJson(service, '/customers/7/notes', { text: 'called back' });
    expect(res).toEqual({ status: 201, body: { note: 'n1' } });
    const keys = upstream.hits('/customers/7/notes').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/.+/);
    expect(keys[1]).toBe(keys[0]);
  });
});

/** The value of the metric's series whose `target` label is `target`. */
async function metric(service: Service, name: string, target: string): Promise<number | undefined> {
  const text = await (await service.app.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`target="${target}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('failure-policies example: load shedding', () => {
  let upstream: ScriptedUpstream;
  let service: Service;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    const built = await buildService(
      [path.join(import.meta.dirname, 'failure-policies.pipe')],
      'failure-policies-shedding',
    );
    service = await built.runtime.createService(built.definition, {
      backends: createFakeBackends(),
      startTriggers: false,
      dataDir: built.outDir,
      env: { CRM_URL: upstream.url, LOG_LEVEL: 'silent' },
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop(100);
    await upstream?.close();
  });

  it('a burst of 1,000 requests: 2 run, 10 wait, 988 are shed with 503 and Retry-After; /health still answers', async () => {
    upstream.script('/price', [{ status: 200, body: { price: 42 }, hold: true }]);
    const burst = Array.from({ length: 1000 }, () => service.app.request('/quote'));
    // The shed requests are answered while the first ones still run (the upstream holds them).
    await eventually(async () => (await metricValue(service, 'pipec_shed_total', 'pipeline="quote"')) === 988);
    await eventually(async () => upstream.hits('/price').length === 2);
    expect(await metricValue(service, 'pipec_queue_depth', 'pipeline="quote"')).toBe(10);
    const health = await service.app.request('/health');
    expect(health.status).toBe(200);
    upstream.release();
    // The queued ones reach the upstream as slots free up; each is held, then released.
    await eventually(async () => {
      upstream.release();
      return upstream.hits('/price').length === 12;
    });
    upstream.release();
    const responses = await Promise.all(burst);
    const ok = responses.filter((r) => r.status === 200);
    const shed = responses.filter((r) => r.status === 503);
    expect(ok).toHaveLength(12);
    expect(shed).toHaveLength(988);
    expect(new Set(shed.map((r) => r.headers.get('retry-after')))).toEqual(new Set(['1']));
    expect(await shed[0]?.json()).toMatchObject({ code: 503, error: expect.stringContaining('overloaded') });
    expect(await metricValue(service, 'pipec_queue_depth', 'pipeline="quote"')).toBe(0);
  }, 60_000);
});

/** Polls `check` (every 10 ms, up to 20 s) until it holds. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met within 20 s');
}

/** The value of the metric's series whose labels include `label` (e.g. `pipeline="quote"`). */
async function metricValue(service: Service, name: string, label: string): Promise<number | undefined> {
  const text = await (await service.app.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
