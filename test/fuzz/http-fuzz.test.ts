/**
 * A bounded, seeded fuzz run of hostile HTTP requests (http-inputs.ts) against a built service
 * (fixtures/attack-surface.pipe) over raw sockets. Every answer must come (no hang), be no 5xx,
 * keep JSON readable and leak nothing (answerProblem); afterwards the service is still up, its
 * objects are not polluted and it logged no error: a client's mistakes are never the server's.
 * CI makes FUZZ_RUNS=1500 (default) runs from a fixed seed; `npm run fuzz` many more from new ones.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningService } from '../e2e/service-process.js';
import { answerProblem, buildFixture, fuzzRuns, fuzzSeed } from './fuzz-support.js';
import { hostileRequest } from './http-inputs.js';
import { sendRaw } from './raw-http.js';

const RUNS = fuzzRuns(1500);
const SEED = fuzzSeed(19_5);

describe('HTTP fuzz run against a built service', () => {
  let server: RunningService;
  let port: number;

  beforeAll(async () => {
    server = await startServer(await buildFixture('http-fuzz'), {
      PIPEC_BODY_TIMEOUT_MS: '5000',
      PIPEC_HEADER_TIMEOUT_MS: '5000',
    });
    port = Number(new URL(server.url).port);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it(
    `answers ${RUNS} hostile requests (seed ${SEED}) without a 5xx, a hang or a leak`,
    async () => {
      const statuses = new Map<number, number>();
      let failure: string | undefined;
      const run = await fc.check(
        fc.asyncProperty(hostileRequest, async (req) => {
          let problem: string | undefined;
          try {
            const res = await sendRaw(port, req, 10_000);
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            problem = answerProblem(res);
          } catch (err) {
            problem = err instanceof Error ? err.message : String(err);
          }
          if (problem) failure ??= `${req.label}: ${problem}`;
          return problem === undefined;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(failure, `seed ${SEED}`).toBeUndefined();
      expect(run.errorInstance, `seed ${SEED}`).toBeNull();
      expect(run.numRuns).toBe(RUNS);
      // The run reached the service's own answers, not only Node's 400s for unparsable requests.
      expect([...statuses.keys()].filter((s) => s < 300).length).toBeGreaterThan(0);
      expect((statuses.get(413) ?? 0) + (statuses.get(400) ?? 0) + (statuses.get(422) ?? 0)).toBeGreaterThan(RUNS / 20);
    },
    Math.max(110_000, RUNS * 25),
  );

  it('is still up, unpolluted, and logged no error', async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const echo = await fetch(`${server.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(JSON.stringify(await echo.json())).not.toContain('polluted');
    const errors = server
      .logs()
      .split('\n')
      .filter((line) => line.includes('"level":50') || line.includes('"level":60'));
    expect(errors.slice(0, 3)).toEqual([]);
  });
});
