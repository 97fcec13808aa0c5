/**
 * Schedules you can drive: `pipec run` serves the development route that fires a schedule now, and
 * the reprocessing example's README cycle works through it — store, re-send with `current`
 * incremented, give up with a notification. A `pipec build` output has no such route.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDevRoutes } from '../../compiler/cli/dev-server.js';
import { pipecRun, pollUntil, type PipecRun } from './pipec-run.js';
import { REPO_ROOT, runCli, startServer, tempDir } from './service-process.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/reprocessing');

interface Status {
  pending: number;
  outcomes: Array<{ _id: string; n: number }>;
  notifications: Array<Record<string, unknown>>;
}
interface Attempt {
  current: number;
  outcome: string;
}

describe('pipec run: fire a schedule now', () => {
  let run: PipecRun;
  let url = '';

  beforeAll(async () => {
    const dir = tempDir('run-schedules');
    run = pipecRun([EXAMPLE, '--out', path.join(dir, 'out')], { PIPEC_DATA_DIR: path.join(dir, 'data') });
    url = await run.started();
  }, 180_000);

  afterAll(async () => {
    await run?.stop();
  });

  const json = async <T>(route: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${url}${route}`, init);
    return { status: res.status, body: (await res.json()) as T };
  };
  const status = async (): Promise<Status> => (await json<Status>('/reprocessing/status')).body;
  const attempts = async (orderId: string): Promise<Attempt[]> =>
    (await json<{ attempts: Attempt[] }>(`/reprocessing/attempts/${orderId}`)).body.attempts;
  const fire = () => json<Record<string, unknown>>('/_pipec/schedules/reprocess-timer', { method: 'POST' });

  it('lists the schedules and refuses a pipeline without one', async () => {
    expect((await json('/_pipec/schedules')).body).toEqual({
      schedules: [{ pipeline: 'reprocess-timer', cron: '* * * * *', timezone: 'UTC' }],
    });
    expect(await json('/_pipec/schedules/reprocessing-event', { method: 'POST' })).toMatchObject({
      status: 404,
      body: { schedules: ['reprocess-timer'] },
    });
  });

  it('drives the README cycle: store, re-send with current incremented, give up with a notification', async () => {
    const order = { orderId: 'readme-1', failTimes: 9, maxRetry: 2, intervalRetry: 0 };
    const submitted = await json('/reprocessing/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(order),
    });
    expect(submitted).toEqual({ status: 202, body: { accepted: 'readme-1' } });
    // Store: the first attempt failed and the engine keeps the order.
    await pollUntil('the order stored', status, (s) => s.pending === 1);
    for (const current of [1, 2]) {
      const fired = await fire();
      expect(fired).toMatchObject({
        status: 200,
        body: { pipeline: 'reprocess-timer', result: { total: 1, success: 1, failed: 0 } },
      });
      // Re-send: the flow gets the order with `current` incremented, fails again and sends it back.
      const seen = await pollUntil(
        `re-send ${current}`,
        () => attempts('readme-1'),
        (a) => a.length === current + 1,
      );
      expect(seen.map((a) => [a.current, a.outcome])).toEqual(
        Array.from({ length: current + 1 }, (_, i) => [i, 'failed']),
      );
      await pollUntil(`re-send ${current} stored again`, status, (s) => s.pending === 1);
    }
    // Give up: maxRetry re-sends were made; the next tick notifies instead of re-sending.
    expect((await fire()).status).toBe(200);
    const final = await pollUntil('the notification', status, (s) => s.notifications.length === 1 && s.pending === 0);
    expect(final.notifications[0]).toMatchObject({
      reason: 'max-retry',
      pipeOrEventName: 'reprocessing-demo-order',
      maxRetry: 2,
      current: 2,
      payload: order,
    });
    expect(await attempts('readme-1')).toHaveLength(3);
  }, 120_000);
});

describe('the development routes', () => {
  it('answer only callers on this machine', async () => {
    const service = {
      app: { fetch: () => new Response('service') },
      fireSchedule: async () => ({ ok: true, executionId: 'x', result: 1 }),
    } as unknown as Parameters<typeof withDevRoutes>[0];
    const def = {
      name: 's',
      pipelines: [{ name: 'tick', trigger: { kind: 'scheduler', cron: '* * * * *', timezone: 'UTC' } }],
    } as unknown as Parameters<typeof withDevRoutes>[1];
    const app = withDevRoutes(service, def);
    const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });
    expect((await app.request('/_pipec/schedules/tick', { method: 'POST' }, from('10.1.2.3'))).status).toBe(403);
    expect((await app.request('/_pipec/schedules', {}, from('192.168.0.9'))).status).toBe(403);
    expect(await (await app.request('/_pipec/schedules/tick', { method: 'POST' }, from('::1'))).json()).toEqual({
      pipeline: 'tick',
      executionId: 'x',
      result: 1,
    });
    expect(await (await app.request('/anything', {}, from('10.1.2.3'))).text()).toBe('service');
  });

  it('are not in a pipec build output, which answers them 404', async () => {
    const out = path.join(tempDir('no-dev-routes'), 'out');
    const built = await runCli(['build', EXAMPLE, '--out', out]);
    expect(built.code, built.output.err.join('\n')).toBe(0);
    const files = fs
      .readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile() && !f.parentPath.includes('node_modules'));
    const holding = files.filter(
      (f) =>
        /\.(js|ts|cjs|json)$/.test(f.name) &&
        fs.readFileSync(path.join(f.parentPath, f.name), 'utf8').includes('_pipec/schedules'),
    );
    expect(holding.map((f) => f.name)).toEqual([]);
    const served = await startServer(out);
    try {
      expect((await fetch(`${served.url}/_pipec/schedules/reprocess-timer`, { method: 'POST' })).status).toBe(404);
    } finally {
      await served.stop();
    }
  }, 120_000);
});
