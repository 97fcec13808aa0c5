/**
 * Idempotent triggers of the failure-policies example, on both backends (embedded SQLite;
 * PostgreSQL + NATS JetStream) and across two replicas sharing them: a repeated Idempotency-Key
 * answers the first answer without running again, a repeat while the first runs is refused with
 * 409 and Retry-After, a failed execution gives its key back, a key is forgotten after its window,
 * and an event published twice with the same order id is handled once.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import type { JsonObject } from '../../runtime/types.js';
import { buildService, ManualClock, type BuiltService } from '../../test/e2e/in-process.js';
import { ScriptedUpstream } from '../../test/support/scripted-upstream.js';
import {
  backendVariants,
  eventually,
  isolatedBackend,
  settled,
  type IsolatedBackend,
} from '../reprocessing/test-support.js';

const variants = await backendVariants('failure-policies idempotency');
const HOUR = 3_600_000;

let built: BuiltService;
beforeAll(async () => {
  built = await buildService([path.join(import.meta.dirname, 'failure-policies.pipe')], 'failure-policies-idempotency');
}, 120_000);

for (const variant of variants) {
  describe.runIf(variant.run)(`idempotent triggers: ${variant.name}, two replicas`, () => {
    let upstream: ScriptedUpstream;
    let backend: IsolatedBackend;
    const replicas: Service[] = [];
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 8, 0, 0));

    beforeAll(async () => {
      upstream = await ScriptedUpstream.start();
      backend = await isolatedBackend(variant, 'idempotency');
      // Two services over one backend: the SQLite file or PostgreSQL + NATS, as two replicas would.
      for (let i = 0; i < 2; i++) {
        const service = await built.runtime.createService(built.definition, {
          clock,
          dataDir: backend.dataDir,
          env: { ...backend.env, CRM_URL: upstream.url, LOG_LEVEL: 'silent' },
        });
        await service.start();
        replicas.push(service);
      }
    }, 60_000);
    afterAll(async () => {
      for (const service of replicas) await service.stop(1000);
      await backend?.dispose();
      await upstream?.close();
    }, 30_000);

    const pay = async (replica: number, key: string, body: JsonObject) => {
      const res = await (replicas[replica] as Service).app.request('/payments', {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
      return { status: res.status, body: (await res.json()) as JsonObject, headers: res.headers };
    };

    it('a repeated key answers the first answer, on either replica, and charges once', async () => {
      upstream.script('/charges', [
        { status: 201, body: { charge: 'ch_1', amount: 10 } },
        { status: 201, body: { charge: 'ch_2', amount: 10 } },
      ]);
      const first = await pay(0, 'pay-1', { amount: 10 });
      expect(first).toMatchObject({ status: 201, body: { charge: { charge: 'ch_1' } } });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await pay(1, 'pay-1', { amount: 10 });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(upstream.hits('/charges')).toHaveLength(1);
      // Another key is another payment.
      expect(await pay(1, 'pay-2', { amount: 10 })).toMatchObject({
        status: 201,
        body: { charge: { charge: 'ch_2' } },
      });
      expect(upstream.hits('/charges')).toHaveLength(2);
    });

    it('a repeat while the first still runs is refused with 409 and Retry-After', async () => {
      upstream.script('/charges', [{ status: 201, body: { charge: 'ch_3' }, hold: true }]);
      const first = pay(0, 'pay-3', { amount: 30 });
      await eventually('the first request reached the upstream', async () => upstream.hits('/charges').length === 3);
      const during = await pay(1, 'pay-3', { amount: 30 });
      expect(during.status).toBe(409);
      expect(during.headers.get('retry-after')).toBe('1');
      upstream.release();
      expect((await first).status).toBe(201);
      expect((await pay(1, 'pay-3', { amount: 30 })).headers.get('idempotent-replayed')).toBe('true');
    });

    it('a failed execution gives its key back: the retry runs again', async () => {
      upstream.script('/charges', [{ status: 503 }, { status: 201, body: { charge: 'ch_4' } }]);
      expect((await pay(0, 'pay-4', { amount: 40 })).status).toBe(503);
      const retried = await pay(1, 'pay-4', { amount: 40 });
      expect(retried).toMatchObject({ status: 201, body: { charge: { charge: 'ch_4' } } });
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
    });

    it('a key is forgotten after its window', async () => {
      upstream.script('/charges', [
        { status: 201, body: { charge: 'ch_5' } },
        { status: 201, body: { charge: 'ch_6' } },
      ]);
      expect((await pay(0, 'pay-5', { amount: 50 })).body).toMatchObject({ charge: { charge: 'ch_5' } });
      clock.advance(HOUR + 1000);
      const later = await pay(1, 'pay-5', { amount: 50 });
      expect(later.body).toMatchObject({ charge: { charge: 'ch_6' } });
      expect(later.headers.get('idempotent-replayed')).toBeNull();
    });

    it('an event published twice with the same key is handled once', async () => {
      upstream.script('/shipments', [{ status: 201, body: { shipped: true } }]);
      for (const replica of [0, 1, 0]) {
        const res = await (replicas[replica] as Service).app.request('/orders/paid', {
          method: 'POST',
          body: JSON.stringify({ orderId: `o-${variant.name}` }),
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).toBe(202);
      }
      await eventually('the order was shipped', async () => upstream.hits('/shipments').length >= 1);
      const replays = async (): Promise<number> => {
        let total = 0;
        for (const service of replicas)
          total += await metricSum(service, 'pipec_idempotent_replays_total', 'pipeline="ship-order"');
        return total;
      };
      await eventually('both repeats were skipped', async () => (await replays()) === 2);
      expect(await settled(async () => upstream.hits('/shipments').length)).toBe(1);
      // A different order is shipped as usual.
      await (replicas[1] as Service).app.request('/orders/paid', {
        method: 'POST',
        body: JSON.stringify({ orderId: `o2-${variant.name}` }),
        headers: { 'content-type': 'application/json' },
      });
      await eventually('the second order was shipped', async () => upstream.hits('/shipments').length === 2);
    });
  });
}

/** The sum of a metric's series whose labels include `label`. */
async function metricSum(service: Service, name: string, label: string): Promise<number> {
  const text = await (await service.app.request('/metrics')).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes(label))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
