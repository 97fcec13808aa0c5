/**
 * Dead letters end to end on a built service (embedded backends): an event its subscriber refuses
 * lands in the dead letters; `pipec dead-letters` lists, shows, replays and purges it through the
 * running service's admin endpoint and directly in the SQLite file; a payload no backend can store
 * is refused at the HTTP edge with 422 (publish fails on error by default), never answered 2xx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer, tempDir, type RunningService } from './service-process.js';

const SOURCE = `
schema Order {
  type: "object", required: ["sku"],
  properties: { sku: { type: "string", minLength: 1 } },
}

pipeline intake {
  trigger http { method: POST, path: "/orders" }
  publish order-placed { payload: {{ message.body }} }
  respond 202 { accepted: true }
}

pipeline fulfil {
  trigger event { name: "order-placed", body: Order, max-deliveries: 2, backoff: { initial: 50, max: 100 } }
  log { message: "fulfilling {{ message.sku }}" }
}
`;

const KEY = 'e2e-admin-key-0123456789';

describe('pipec dead-letters against a built service', () => {
  let service: RunningService;
  let dataDir: string;

  beforeAll(async () => {
    const dir = tempDir('dead-letters');
    fs.writeFileSync(path.join(dir, 'orders.pipe'), SOURCE);
    const outDir = path.join(dir, 'out');
    const built = await runCli(['build', dir, '--out', outDir]);
    expect(built.code, built.output.err.join('\n')).toBe(0);
    dataDir = path.join(outDir, '.data');
    service = await startServer(outDir, { PIPEC_ADMIN_API_KEY: KEY });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  const post = async (body: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const cli = (...args: string[]) =>
    runCli(['dead-letters', ...args, '--url', service.url, '--key', KEY, '--format', 'json']);
  const listed = async (): Promise<Array<Record<string, unknown>>> => {
    const result = await cli('list');
    expect(result.code, result.output.err.join('\n')).toBe(0);
    return (JSON.parse(result.output.out.join('\n')) as { deadLetters: Array<Record<string, unknown>> }).deadLetters;
  };
  const eventually = async (what: string, check: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + 15_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`not reached within 15 s: ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('refuses a payload no backend stores with 422 instead of answering 202', async () => {
    const refused = await post('{"sku":"a\\u0000b"}');
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 422, error: expect.stringContaining('U+0000') });
  });

  it('keeps an event its subscriber refuses, and shows, replays and purges it', { timeout: 60_000 }, async () => {
    expect((await post('{"nosku":true}')).status).toBe(202);
    await eventually('the dead letter', async () => (await listed()).length === 1);
    const [letter] = await listed();
    expect(letter).toMatchObject({
      event: 'order-placed',
      subscriber: 'fulfil',
      reason: 'permanent-error',
      attemptCount: 1,
    });
    const id = String(letter?.['id']);

    const shown = await cli('show', id);
    expect(JSON.parse(shown.output.out.join('\n'))).toMatchObject({
      id,
      payload: { nosku: true },
      attempts: [{ attempt: 1 }],
    });

    // Directly in the SQLite file the service uses, without its endpoint.
    const saved = process.env['PIPEC_DATA_DIR'];
    process.env['PIPEC_DATA_DIR'] = dataDir;
    try {
      const direct = await runCli(['dead-letters', 'list', '--event', 'order-placed']);
      expect(direct.code, direct.output.err.join('\n')).toBe(0);
      expect(direct.output.out.join('\n')).toContain(id);
    } finally {
      if (saved === undefined) delete process.env['PIPEC_DATA_DIR'];
      else process.env['PIPEC_DATA_DIR'] = saved;
    }

    const replayed = await cli('replay', id);
    expect(replayed.code, replayed.output.err.join('\n')).toBe(0);
    const {
      replayed: [first],
    } = JSON.parse(replayed.output.out.join('\n')) as { replayed: Array<{ id: string; eventId: string }> };
    expect(first?.id).toBe(id);
    // Still invalid: the replayed event is refused again, a second dead letter; the first records the replay.
    await eventually('the replay to fail again', async () => (await listed()).length === 2);
    const again = JSON.parse((await cli('show', id)).output.out.join('\n')) as { replays: Array<{ eventId: string }> };
    expect(again.replays.map((r) => r.eventId)).toEqual([first?.eventId]);

    const purged = await cli('purge', '--all');
    expect(JSON.parse(purged.output.out.join('\n'))).toEqual({ purged: 2 });
    expect(await listed()).toEqual([]);
  });

  it('says what is wrong: unknown id, missing key, bad usage', async () => {
    const unknown = await cli('show', '0'.repeat(24));
    expect(unknown.code).toBe(1);
    const noKey = await runCli(['dead-letters', 'list', '--url', service.url, '--key', 'wrong']);
    expect(noKey.code).toBe(1);
    expect(noKey.output.err.join('\n')).toContain('401');
    expect((await runCli(['dead-letters', 'purge'])).code).toBe(2);
    expect((await runCli(['dead-letters', 'explode'])).code).toBe(2);
  });
});
