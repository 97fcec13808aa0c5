/**
 * Which backends the environment asks for, failing closed (issue 22, item 4): a PIPEC_STORE or
 * PIPEC_BROKER with a scheme pipec does not know stops the start with one line naming the
 * variable, never a fallback to the embedded backends. With PIPEC_REPLICAS above 1, a mix that
 * would not be correct across replicas for what the service uses is refused with the reason:
 *
 *   what is shared          embedded   PostgreSQL   NATS    PostgreSQL + NATS
 *   Object Store            no         yes          no      yes
 *   events, dead letters    no         no           yes     yes
 *   schedule ticks (lock)   no         yes          yes     yes
 *   rate limits             no         yes          yes     yes
 *
 * Pure: the environment and what the service uses in, a choice or an error out.
 */

/** A configuration the service must not start with; its message is the one line an operator reads. */
export class BackendConfigError extends Error {
  override readonly name = 'BackendConfigError';
}

export interface BackendChoice {
  /** PostgreSQL URL, or undefined for the embedded SQLite store. */
  readonly storeUrl?: string;
  /** NATS URL(s), or undefined for the embedded SQLite queue. */
  readonly brokerUrl?: string;
  /** How many replicas run this service (PIPEC_REPLICAS, default 1). */
  readonly replicas: number;
}

/** What a service uses that replicas must share. */
export interface SharedUse {
  /** Declared stores (an Object Store). */
  readonly stores: readonly string[];
  /** Pipelines started by events. */
  readonly eventPipelines: readonly string[];
}

const STORE_SCHEMES = ['postgres://', 'postgresql://'];
const BROKER_SCHEMES = ['nats://', 'tls://'];

function schemeOf(url: string): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  return match ? `${match[1]}:` : url.slice(0, 20);
}

/** The URL of `name`, undefined when unset or empty; throws on a scheme not in `schemes`. */
function urlOf(env: NodeJS.ProcessEnv, name: string, schemes: readonly string[]): string | undefined {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return undefined;
  // Every server of a comma-separated NATS list must have a known scheme.
  const parts = name === 'PIPEC_BROKER' ? value.split(',').map((p) => p.trim()) : [value];
  for (const part of parts) {
    if (!schemes.some((s) => part.toLowerCase().startsWith(s))) {
      throw new BackendConfigError(
        `${name} has an unknown scheme "${schemeOf(part)}" (expected ${schemes.join(' or ')}); the service does not start with a backend it cannot use`,
      );
    }
  }
  return value;
}

function replicasOf(env: NodeJS.ProcessEnv): number {
  const raw = env['PIPEC_REPLICAS']?.trim();
  if (raw === undefined || raw === '') return 1;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new BackendConfigError(`PIPEC_REPLICAS must be a whole number of at least 1, not ${JSON.stringify(raw)}`);
  return value;
}

export function chooseBackends(env: NodeJS.ProcessEnv): BackendChoice {
  const storeUrl = urlOf(env, 'PIPEC_STORE', STORE_SCHEMES);
  const brokerUrl = urlOf(env, 'PIPEC_BROKER', BROKER_SCHEMES);
  return { ...(storeUrl ? { storeUrl } : {}), ...(brokerUrl ? { brokerUrl } : {}), replicas: replicasOf(env) };
}

/** Why this mix is wrong for `use` across the configured replicas; null when it is correct. */
export function replicaProblem(choice: BackendChoice, use: SharedUse): string | null {
  if (choice.replicas <= 1) return null;
  const n = choice.replicas;
  if (!choice.storeUrl && !choice.brokerUrl) {
    return `PIPEC_REPLICAS=${n} with the embedded backends only: each replica would keep its own data, event queue and schedule lock (every replica would fire every schedule tick); set PIPEC_STORE=postgres://… and/or PIPEC_BROKER=nats://… (docs/deploy.md)`;
  }
  if (use.stores.length > 0 && !choice.storeUrl) {
    return `PIPEC_REPLICAS=${n} without PIPEC_STORE: the stores ${use.stores.join(', ')} would be each replica's own SQLite file, not one Object Store; set PIPEC_STORE=postgres://… (docs/deploy.md)`;
  }
  if (use.eventPipelines.length > 0 && !choice.brokerUrl) {
    return `PIPEC_REPLICAS=${n} without PIPEC_BROKER: the events of ${use.eventPipelines.join(', ')} would wait in each replica's own queue (lost with the replica's disk); set PIPEC_BROKER=nats://… (docs/deploy.md)`;
  }
  return null;
}
