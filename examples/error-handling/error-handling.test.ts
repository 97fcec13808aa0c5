/**
 * The error-handling example end to end, in process, on both backends (embedded SQLite; PostgreSQL
 * + NATS JetStream), built together with the reprocessing engine it relies on. A small node:http
 * server on 127.0.0.1 plays the order API and the external error API, with behaviour chosen per
 * call; the service runs with a ManualClock and the reprocessing timer is fired by hand.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '../../runtime/types.js';
import type { Service } from '../../runtime/service/create-service.js';
import { buildService, ManualClock, postJson, type BuiltService } from '../../test/e2e/in-process.js';
import { REPO_ROOT } from '../../test/e2e/service-process.js';
import {
  backendVariants,
  capturingLogger,
  eventually,
  isolatedBackend,
  settled,
  sleep,
  type IsolatedBackend,
  type LogRecord,
} from '../reprocessing/test-support.js';

const MINUTE = 60_000;
const variants = await backendVariants('error-handling example');

type ErrorApiMode = 'ok' | 'fail' | 'hang';

/** The order API (/orders) and the external error API (/errors), recording what they receive. */
class FakeApis {
  readonly orders: JsonObject[] = [];
  readonly errors: JsonObject[] = [];
  errorMode: ErrorApiMode = 'ok';
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private readonly ordersSeen = new Map<string, number>();

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  ordersFor(pedidoId: string): JsonObject[] {
    return this.orders.filter((o) => o['pedidoId'] === pedidoId);
  }

  errorsFor(pedidoId: string): JsonObject[] {
    return this.errors.filter((e) => e['pedidoId'] === pedidoId);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as JsonObject;
    const answer = (status: number, payload: Json): void => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };
    if (req.url === '/orders') {
      this.orders.push(body);
      const pedidoId = String(body['pedidoId']);
      const seen = (this.ordersSeen.get(pedidoId) ?? 0) + 1;
      this.ordersSeen.set(pedidoId, seen);
      switch (body['processoId']) {
        case 'outage':
          return answer(503, { error: 'down' });
        case 'reject':
          return answer(400, { error: 'bad order' });
        case 'flaky':
          return answer(seen === 1 ? 502 : 200, {});
        // Longer than the producer's read timeout (2 s).
        case 'slow':
          return void setTimeout(() => answer(200, {}), 3000);
        default:
          return answer(200, { accepted: pedidoId });
      }
    }
    if (req.url === '/errors') {
      this.errors.push(body);
      if (this.errorMode === 'fail') return answer(500, { error: 'error API broken' });
      // Longer than the error pipeline's read timeout (3 s).
      if (this.errorMode === 'hang') return void setTimeout(() => answer(200, {}), 4000);
      return answer(200, { received: true });
    }
    answer(404, {});
  }
}

let built: BuiltService;
beforeAll(async () => {
  built = await buildService(
    [path.join(REPO_ROOT, 'examples/error-handling'), path.join(REPO_ROOT, 'examples/reprocessing')],
    'error-handling',
  );
}, 60_000);

const validError = (pedidoId: string, extra: JsonObject = {}): JsonObject => ({
  tipoDoErro: 'server',
  mensagem: 'connection refused by the billing API',
  payload: { pedidoId, total: 10 },
  dataDoErro: '2026-01-01 08:00:00',
  pedidoId,
  processoId: 'billing',
  email: 'ops@example.com',
  ...extra,
});

for (const variant of variants) {
  describe.runIf(variant.run)(`error-handling example: ${variant.name}`, () => {
    const apis = new FakeApis();
    let apiUrl = '';
    const opened: Array<{ service: Service; backend: IsolatedBackend }> = [];

    beforeAll(async () => {
      apiUrl = await apis.listen();
    });
    afterAll(async () => {
      for (const { service, backend } of opened) {
        await service.stop(1000);
        await backend.dispose();
      }
      await apis.close();
    }, 30_000);

    /** A fresh service over an isolated backend; forwarding on unless `forward` is ''. */
    const open = async (tag: string, forward = `${apiUrl}/errors`) => {
      const backend = await isolatedBackend(variant, `errors-${tag}`);
      const clock = new ManualClock(Date.UTC(2026, 0, 1, 8, 0, 0));
      const log = capturingLogger();
      const service = await built.runtime.createService(built.definition, {
        clock,
        // The test's ticks only: a wall-clock tick at a real minute boundary would race them.
        scheduleTimers: false,
        dataDir: backend.dataDir,
        logger: log.logger,
        env: { ...backend.env, ERROR_HANDLING_FORWARD_URL: forward, ERROR_HANDLING_ORDER_API_URL: `${apiUrl}/orders` },
      });
      await service.start();
      opened.push({ service, backend });
      const get = async (route: string): Promise<{ status: number; body: JsonObject }> => {
        const res = await service.app.request(route);
        return { status: res.status, body: (await res.json()) as JsonObject };
      };
      const pending = async (): Promise<number> => (await get('/reprocessing/status')).body['pending'] as number;
      const tick = async (): Promise<void> => {
        expect((await service.fireSchedule('reprocess-timer')).ok).toBe(true);
      };
      const logged = (pipeline: string, level: number, start: string): LogRecord[] =>
        log.records().filter((r) => r.pipeline === pipeline && r.level === level && String(r.msg).startsWith(start));
      return { service, clock, get, pending, tick, logged };
    };

    it('refuses error messages that break the standard format, with a logged validation error', async () => {
      const s = await open('invalid');
      const broken: Array<[string, JsonObject]> = [
        ['pedidoId', Object.fromEntries(Object.entries(validError('bad-1')).filter(([k]) => k !== 'pedidoId'))],
        ['dataDoErro', validError('bad-2', { dataDoErro: '2026-01-01T08:00:00' })],
        ['dataDoErro', validError('bad-3', { dataDoErro: '2026-13-01 08:00:00' })],
        ['email', validError('bad-4', { email: 'not-an-email' })],
        ['tipoDoErro', validError('bad-5', { tipoDoErro: 'fatal' })],
        ['payload', validError('bad-6', { payload: 'text' })],
        ['mensagem', validError('bad-7', { mensagem: '' })],
      ];
      for (const [, message] of broken)
        expect((await postJson(s.service, '/error-handling/errors', message)).status).toBe(202);
      await eventually(
        'every refusal is logged',
        async () => s.logged('error-handler', 50, 'standard error message refused').length === broken.length,
      );
      const refusals = s.logged('error-handler', 50, 'standard error message refused').map((r) => String(r.msg));
      for (const [field] of broken)
        expect(
          refusals.some((text) => text.includes(field)),
          field,
        ).toBe(true);
      for (let i = 1; i <= broken.length; i++) {
        expect(apis.errorsFor(`bad-${i}`)).toEqual([]);
        expect((await s.get(`/error-handling/control/bad-${i}`)).status).toBe(404);
      }
      expect(await s.pending()).toBe(0);
    }, 30_000);

    it('forwards a valid error and records the failed order in the control store', async () => {
      const s = await open('forward');
      apis.errorMode = 'ok';
      await postJson(s.service, '/error-handling/errors', validError('fwd-1'));
      await eventually('forwarded', async () => apis.errorsFor('fwd-1').length === 1);
      expect(apis.errorsFor('fwd-1')[0]).toEqual(validError('fwd-1'));
      await eventually('control record', async () => (await s.get('/error-handling/control/fwd-1')).status === 200);
      expect((await s.get('/error-handling/control/fwd-1')).body).toMatchObject({
        pedidoId: 'fwd-1',
        status: 'failed',
        tipoDoErro: 'server',
        processoId: 'billing',
      });
      await eventually(
        'forward logged',
        async () => s.logged('error-handler', 30, 'server error for order fwd-1 forwarded').length === 1,
      );
      expect(await settled(() => s.pending())).toBe(0);
    }, 30_000);

    it('only records the error when no external API is configured', async () => {
      const s = await open('no-forward', '');
      await postJson(s.service, '/error-handling/errors', validError('local-1', { tipoDoErro: 'client' }));
      await eventually(
        'recorded',
        async () =>
          s.logged('error-handler', 30, 'client error for order local-1 recorded (forwarding is off)').length === 1,
      );
      expect((await s.get('/error-handling/control/local-1')).body).toMatchObject({
        status: 'failed',
        tipoDoErro: 'client',
      });
      expect(apis.errorsFor('local-1')).toEqual([]);
    }, 30_000);

    it('takes the alternative path when the error API answers 500: logs, reprocesses, then forwards', async () => {
      const s = await open('api-500');
      apis.errorMode = 'fail';
      await postJson(s.service, '/error-handling/errors', validError('e500-1'));
      await eventually('sent to reprocessing', async () => (await s.pending()) === 1);
      const warning = s.logged('error-handler', 40, 'error API did not accept the error of order e500-1');
      expect(warning).toHaveLength(1);
      expect(String(warning[0]?.msg)).toContain('status 500');
      apis.errorMode = 'ok';
      s.clock.advance(MINUTE);
      await s.tick();
      await eventually('forwarded on the re-send', async () => apis.errorsFor('e500-1').length === 2);
      expect(await settled(() => s.pending())).toBe(0);
      // What the API receives is the standard message, without the engine's fields.
      expect(apis.errorsFor('e500-1')[1]).toEqual(validError('e500-1'));
    }, 30_000);

    it('takes the alternative path when the error API times out', async () => {
      const s = await open('api-timeout');
      apis.errorMode = 'hang';
      await postJson(s.service, '/error-handling/errors', validError('slow-1'));
      await eventually('sent to reprocessing', async () => (await s.pending()) === 1, 15_000);
      const warning = s.logged('error-handler', 40, 'error API did not accept the error of order slow-1');
      expect(warning).toHaveLength(1);
      expect(String(warning[0]?.msg)).toContain('status none');
      apis.errorMode = 'ok';
    }, 30_000);

    it('sends a malformed order or one the order API refuses straight to the error pipeline as a client error', async () => {
      const s = await open('client');
      apis.errorMode = 'ok';
      await postJson(s.service, '/error-handling/orders', { pedidoId: 'cli-1', processoId: 'checkout' });
      await postJson(s.service, '/error-handling/orders', {
        pedidoId: 'cli-2',
        processoId: 'reject',
        items: [{ sku: 'A', qty: 1 }],
      });
      await eventually(
        'two client errors',
        async () => apis.errorsFor('cli-1').length === 1 && apis.errorsFor('cli-2').length === 1,
      );
      expect(apis.errorsFor('cli-1')[0]).toMatchObject({
        tipoDoErro: 'client',
        processoId: 'checkout',
        email: 'integrations@example.com',
        payload: { pedidoId: 'cli-1' },
      });
      expect(String(apis.errorsFor('cli-1')[0]?.['mensagem'])).toContain('items');
      expect(String(apis.errorsFor('cli-1')[0]?.['dataDoErro'])).toBe('2026-01-01 08:00:00');
      expect(apis.errorsFor('cli-2')[0]).toMatchObject({
        tipoDoErro: 'client',
        mensagem: 'the order API refused the order with status 400',
      });
      expect(apis.ordersFor('cli-1')).toEqual([]);
      expect(await settled(() => s.pending())).toBe(0);
    }, 30_000);

    it('reprocesses a server-side failure first and reports it only when the retries are exhausted', async () => {
      const s = await open('server');
      apis.errorMode = 'ok';
      const order = { pedidoId: 'srv-1', processoId: 'outage', items: [{ sku: 'A', qty: 2 }] };
      await postJson(s.service, '/error-handling/orders', order);
      await eventually('stored for reprocessing', async () => (await s.pending()) === 1);
      expect(apis.errorsFor('srv-1')).toEqual([]);
      for (let k = 1; k <= 3; k++) {
        s.clock.advance(MINUTE);
        await s.tick();
        await eventually(`re-send ${k}`, async () => apis.ordersFor('srv-1').length === k + 1);
        if (k < 3) {
          // The re-sent message is stored again by an event; the engine deletes the old copy after
          // the re-send. Wait for the new copy (its request says k re-sends so far) before the next tick.
          await eventually(
            `stored again after re-send ${k}`,
            async () =>
              s
                .logged('add-reprocess-event', 30, 'reprocessing request for')
                .some((r) => String(r.msg).endsWith(`(re-sends so far: ${k})`)) && (await s.pending()) === 1,
          );
          expect(apis.errorsFor('srv-1')).toEqual([]);
        }
      }
      await eventually('the server error', async () => apis.errorsFor('srv-1').length === 1);
      expect(apis.errorsFor('srv-1')[0]).toMatchObject({
        tipoDoErro: 'server',
        pedidoId: 'srv-1',
        processoId: 'outage',
        payload: order,
      });
      expect(String(apis.errorsFor('srv-1')[0]?.['mensagem'])).toContain('status 503');
      expect(await settled(() => s.pending())).toBe(0);
      // Every call to the order API carried the order itself, never the engine's fields.
      for (const sent of apis.ordersFor('srv-1')) expect(sent).toEqual(order);
      expect((await s.get('/reprocessing/status')).body['notifications']).toEqual([]);
    }, 30_000);

    it('treats a timeout of the order API as server-side, and stops once a re-send succeeds', async () => {
      const s = await open('recover');
      await postJson(s.service, '/error-handling/orders', {
        pedidoId: 'tmo-1',
        processoId: 'slow',
        items: [{ sku: 'A', qty: 1 }],
      });
      await postJson(s.service, '/error-handling/orders', {
        pedidoId: 'flk-1',
        processoId: 'flaky',
        items: [{ sku: 'B', qty: 1 }],
      });
      await eventually('both stored for reprocessing', async () => (await s.pending()) === 2, 15_000);
      expect(apis.errorsFor('tmo-1')).toEqual([]);
      s.clock.advance(MINUTE);
      await s.tick();
      await eventually(
        'flaky order accepted',
        async () => (await s.get('/error-handling/orders/flk-1')).status === 200,
      );
      expect((await s.get('/error-handling/orders/flk-1')).body).toMatchObject({ attempt: 1 });
      expect(apis.errorsFor('flk-1')).toEqual([]);
      // The slow order times out again and goes back to the engine.
      await eventually('slow order back in reprocessing', async () => (await s.pending()) === 1, 15_000);
    }, 40_000);

    it('does not reprocess an order the error pipeline already marked failed', async () => {
      const s = await open('control');
      apis.errorMode = 'ok';
      await postJson(s.service, '/error-handling/orders', {
        pedidoId: 'ctl-1',
        processoId: 'outage',
        items: [{ sku: 'A', qty: 1 }],
      });
      await eventually('stored for reprocessing', async () => (await s.pending()) === 1);
      // Another step of the same process fails for good: the error pipeline marks the order failed.
      await postJson(
        s.service,
        '/error-handling/errors',
        validError('ctl-1', { tipoDoErro: 'client', mensagem: 'customer blocked' }),
      );
      await eventually('marked failed', async () => (await s.get('/error-handling/control/ctl-1')).status === 200);
      s.clock.advance(MINUTE);
      await s.tick();
      await eventually(
        're-send dropped',
        async () => s.logged('error-handling-processor', 40, 'order ctl-1 is marked failed').length === 1,
      );
      await sleep(200);
      expect(apis.ordersFor('ctl-1')).toHaveLength(1);
      expect(await settled(() => s.pending())).toBe(0);
    }, 30_000);
  });
}
