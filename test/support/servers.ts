/**
 * The distributed backends' servers for tests and benchmarks: where they are (env overrides) and
 * whether they answer. Suites that need them fail under CI=true when they do not, and otherwise
 * skip with a message (the repository's rule).
 */
import { createConnection } from 'node:net';

export const PG_URL = process.env['PIPEC_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** MySQL/MariaDB for the sql connector's tests (root without password here; CI's service the same). */
export const MYSQL_URL = process.env['PIPEC_TEST_MYSQL'] ?? 'mysql://root@127.0.0.1:3306/test';
export const NATS_URL = process.env['PIPEC_TEST_NATS'] ?? 'nats://127.0.0.1:4222';
export const REDIS_URL = process.env['PIPEC_TEST_REDIS'] ?? 'redis://127.0.0.1:6379';
export const AMQP_URL = process.env['PIPEC_TEST_AMQP'] ?? 'amqp://guest:guest@127.0.0.1:5672';
export const MQTT_URL = process.env['PIPEC_TEST_MQTT'] ?? 'mqtt://127.0.0.1:1883';
export const IN_CI = process.env['CI'] === 'true';

/** True when a TCP connection to the URL's host and port opens within a second. */
export function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: u.hostname, port: Number(u.port || defaultPort) });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export const postgresReachable = (): Promise<boolean> => reachable(PG_URL, 5432);
export const mysqlReachable = (): Promise<boolean> => reachable(MYSQL_URL, 3306);
export const natsReachable = (): Promise<boolean> => reachable(NATS_URL, 4222);
export const redisReachable = (): Promise<boolean> => reachable(REDIS_URL, 6379);
export const amqpReachable = (): Promise<boolean> => reachable(AMQP_URL, 5672);
export const mqttReachable = (): Promise<boolean> => reachable(MQTT_URL, 1883);

/**
 * Whether a suite of a real server runs: true when it answers; under CI=true an unreachable server
 * fails the suite (throws), elsewhere the suite is skipped and says so.
 */
export async function serverAvailable(what: string, url: string, defaultPort: number): Promise<boolean> {
  if (await reachable(url, defaultPort)) return true;
  const u = new URL(url);
  const message = `${what} at ${u.hostname}:${u.port || defaultPort} is not reachable`;
  if (IN_CI) throw new Error(`${message} (CI=true: the server must run)`);
  console.warn(`skipping: ${message}`);
  return false;
}

/** A name no other test (or engineer on this machine) uses: prefix, process id, time and a random part. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Deletes what a broker configured with PIPEC_NATS_STREAM=`stream` made on the NATS server: the
 * event stream, its dead letters, and its KV buckets (attempts, schedule ledger and state).
 */
export async function removeNatsStreams(stream: string, url: string = NATS_URL): Promise<void> {
  const [{ connect }, { jetstreamManager }] = await Promise.all([
    import('@nats-io/transport-node'),
    import('@nats-io/jetstream'),
  ]);
  const nc = await connect({ servers: new URL(url).host });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name === stream || name.startsWith(`${stream}_`) || name.startsWith(`KV_${stream}_`)) {
        await jsm.streams.delete(name).catch(() => false);
      }
    }
  } finally {
    await nc.close();
  }
}
