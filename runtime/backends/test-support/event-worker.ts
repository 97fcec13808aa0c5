/**
 * A subscriber process for the broker crash and replica tests (run with `node --import tsx`).
 * Env: WORKER_DATA_DIR, WORKER_OUT (file to append `<payload.n> <attempt> <pid>` lines to),
 * WORKER_SUBSCRIBER, WORKER_EVENT, WORKER_DELAY_MS, plus the PIPEC_* backend selection.
 * Prints `ready` once subscribed; SIGTERM stops the subscription and closes the backends.
 */
import { appendFileSync } from 'node:fs';
import pino from 'pino';
import { createBackends } from '../index.js';

const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const backends = await createBackends({
  dataDir: required('WORKER_DATA_DIR'),
  env,
  clock: { now: () => Date.now() },
  logger: pino({ level: 'error' }, pino.destination(2)),
});
const delayMs = Number(env['WORKER_DELAY_MS'] ?? '2');
const out = required('WORKER_OUT');
const subscription = await backends.broker.subscribe(
  required('WORKER_SUBSCRIBER'),
  required('WORKER_EVENT'),
  async (delivery) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const n = (delivery.envelope.payload as { n: number }).n;
    appendFileSync(out, `${n} ${delivery.attempt} ${process.pid}\n`);
  },
  { maxDeliveries: 20, ackTimeout: 1000, concurrency: 4 },
);
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void subscription
    .stop()
    .then(() => backends.close())
    .then(() => process.exit(0));
});
