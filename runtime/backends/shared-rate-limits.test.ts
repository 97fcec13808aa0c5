/**
 * Rate limits shared by replicas (issue 22, item 4): two backends opened on the same PostgreSQL,
 * or on the same NATS alone, stand for two replicas; requests spread over both are allowed `max`
 * times in total, not twice that. Needs the real servers (fails under CI=true without them).
 */
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_CI, NATS_URL, PG_URL, reachable, removeNatsStreams } from '../../test/support/servers.js';
import { createSharedRateLimiter, type RateLimitSpec } from '../security/rate-limit.js';
import { SystemClock } from '../service/system-clock.js';
import { createBackends, type Backends } from './index.js';

const postgresUp = await reachable(PG_URL, 5432);
const natsUp = await reachable(NATS_URL, 4222);
if (!IN_CI && (!postgresUp || !natsUp))
  console.warn(
    `[shared-rate-limits.test] skipping what needs ${[postgresUp ? '' : PG_URL, natsUp ? '' : NATS_URL].filter(Boolean).join(', ')}: unreachable`,
  );

const RUN_ID = `${process.pid}_${Date.now()}`;
const silent = pino({ level: 'silent' });

const variants = [
  { name: 'PostgreSQL', run: postgresUp || IN_CI, env: { PIPEC_STORE: PG_URL } },
  {
    name: 'NATS alone',
    run: natsUp || IN_CI,
    env: {
      PIPEC_BROKER: NATS_URL,
      PIPEC_NATS_STREAM: `PIPEC_RL_${RUN_ID}`,
      PIPEC_NATS_SUBJECT_PREFIX: `pipecrl.${RUN_ID}`,
    },
  },
];

afterAll(async () => {
  if (natsUp) await removeNatsStreams(`PIPEC_RL_${RUN_ID}`);
});

describe.each(variants)('rate limits shared through $name', ({ run, env }) => {
  it.runIf(run)('allows max requests in total across two replicas, counted at once', { timeout: 60_000 }, async () => {
    const opened: Backends[] = [];
    try {
      for (const replica of ['a', 'b']) {
        opened.push(
          await createBackends({
            dataDir: `/tmp/pipec-rl-${RUN_ID}-${replica}`,
            env,
            clock: new SystemClock(),
            logger: silent,
            startWaitMs: 10_000,
          }),
        );
      }
      const spec: RateLimitSpec = { window: 60_000, max: 25, key: 'ip' };
      const t = Date.now();
      const scope = `limits-${RUN_ID}`;
      const limiters = opened.map((b) => {
        expect(b.rateLimits).toBeDefined();
        return createSharedRateLimiter(spec, b.rateLimits!, scope, () => t);
      });
      // 60 requests of one client, alternating replicas, all in flight together.
      const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => limiters[i % 2]!('ip:10.0.0.1')));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
      expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds >= 1)).toBe(true);
      // Another client has a budget of its own; another trigger (scope) too.
      expect((await limiters[1]!('ip:10.0.0.2')).allowed).toBe(true);
      expect(
        (await createSharedRateLimiter(spec, opened[0]!.rateLimits!, `${scope}-other`, () => t)('ip:10.0.0.1')).allowed,
      ).toBe(true);
    } finally {
      for (const b of opened) await b.close();
    }
  });
});
