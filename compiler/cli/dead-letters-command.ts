/**
 * `pipec dead-letters list | show | replay | purge`: the events no subscriber could handle, read
 * and acted on either through a running service's admin endpoint (`--url`, with the key from
 * `--key` or PIPEC_ADMIN_API_KEY) or directly in the backends the service uses (the same
 * PIPEC_STORE / PIPEC_BROKER / PIPEC_DATA_DIR environment; no service needs to run).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Output } from './compile-files.js';
import { importModule } from '../import-module.js';
import type { Command } from './pipec.js';
import { packageRoot } from '../project-files.js';

type Values = Record<string, string | boolean | string[] | undefined>;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Filters {
  readonly event?: string;
  readonly subscriber?: string;
  readonly limit?: number;
  readonly offset?: number;
}

/** What both ways of reaching the dead letters offer. */
interface DeadLetterClient {
  list(filters: Filters): Promise<Array<Record<string, Json>>>;
  show(id: string): Promise<Record<string, Json> | null>;
  replay(id: string): Promise<{ eventId: string }>;
  purge(query: { id?: string; event?: string; subscriber?: string }): Promise<number>;
  close(): Promise<void>;
}

const USAGE = [
  'pipec dead-letters list [--event E] [--subscriber S] [--limit N] [--offset N]',
  '                   show ID',
  '                   replay ID... | --event E [--subscriber S] [--limit N]',
  '                   purge ID... | --event E | --subscriber S | --all',
  '  [--url URL [--key KEY]] [--format text|json]',
].join('\n');

export function deadLettersCommand(): Record<string, Command> {
  return {
    'dead-letters': {
      summary: 'List, show, replay or purge the events no subscriber could handle',
      usage: USAGE,
      options: {
        event: { type: 'string' },
        subscriber: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
        all: { type: 'boolean' },
        url: { type: 'string' },
        key: { type: 'string' },
        format: { type: 'string', default: 'text' },
        help: { type: 'boolean', short: 'h' },
      },
      help: [
        'An event ends in the dead letters when its subscriber failed on every allowed delivery, failed permanently (a 4xx, an invalid payload), or found it expired. Each keeps the payload, headers, the error of each attempt and the timestamps.',
        '',
        'With --url, talks to a running service (its PIPEC_ADMIN_API_KEY must be set; give the same key with --key or PIPEC_ADMIN_API_KEY). Without it, opens the backends named by PIPEC_STORE, PIPEC_BROKER and PIPEC_DATA_DIR (default ./.pipec-data) directly — the dead letters live with the broker: the SQLite file, or the NATS stream <PIPEC_NATS_STREAM>_DEAD_LETTERS.',
        '',
        'replay publishes the payload again under its event, for the subscriber that failed only, and records the replay on the dead letter (which stays until purged). Exit code: 0 done, 1 failed (unknown id, unreachable backend), 2 bad usage.',
      ].join('\n'),
      async run(values, positionals, output) {
        const [action, ...ids] = positionals;
        const format = values['format'] === 'json' ? 'json' : values['format'] === 'text' ? 'text' : undefined;
        const filters = filtersOf(values);
        if (!action || !format || filters === null) return usage(output);
        const needsTarget = action === 'replay' || action === 'purge';
        if (action === 'show' && ids.length !== 1) return usage(output);
        if (action === 'list' && ids.length > 0) return usage(output);
        if (
          needsTarget &&
          ids.length === 0 &&
          filters.event === undefined &&
          filters.subscriber === undefined &&
          values['all'] !== true
        )
          return usage(output);
        if (!['list', 'show', 'replay', 'purge'].includes(action)) return usage(output);

        let client: DeadLetterClient;
        try {
          client =
            typeof values['url'] === 'string'
              ? httpClient(
                  values['url'],
                  typeof values['key'] === 'string' ? values['key'] : process.env['PIPEC_ADMIN_API_KEY'],
                )
              : await directClient();
        } catch (err) {
          output.err(`pipec dead-letters: ${message(err)}`);
          return 1;
        }
        try {
          return await perform(action, ids, filters, client, format, output);
        } catch (err) {
          output.err(`pipec dead-letters ${action}: ${message(err)}`);
          return 1;
        } finally {
          await client.close().catch(() => undefined);
        }
      },
    },
  };
}

async function perform(
  action: string,
  ids: string[],
  filters: Filters,
  client: DeadLetterClient,
  format: 'text' | 'json',
  output: Output,
): Promise<number> {
  const print = (value: unknown, text: () => string): void =>
    output.out(format === 'json' ? JSON.stringify(value, null, 2) : text());
  switch (action) {
    case 'list': {
      const letters = await client.list(filters);
      print({ deadLetters: letters }, () =>
        letters.length === 0 ? 'No dead letters.' : letters.map(listLine).join('\n'),
      );
      return 0;
    }
    case 'show': {
      const id = ids[0] as string;
      const letter = await client.show(id);
      if (!letter) {
        output.err(`pipec dead-letters show: no dead letter ${id}`);
        return 1;
      }
      print(letter, () => JSON.stringify(letter, null, 2));
      return 0;
    }
    case 'replay': {
      const targets = ids.length > 0 ? ids : (await client.list(filters)).map((l) => String(l['id']));
      const replayed: Array<{ id: string; eventId: string }> = [];
      for (const id of targets) replayed.push({ id, eventId: (await client.replay(id)).eventId });
      print({ replayed }, () =>
        replayed.length === 0
          ? 'Nothing to replay.'
          : replayed.map((r) => `replayed ${r.id} as event ${r.eventId}`).join('\n'),
      );
      return 0;
    }
    default: {
      let purged = 0;
      if (ids.length > 0) for (const id of ids) purged += await client.purge({ id });
      else {
        // No id and no filter: --all (checked before).
        purged = await client.purge({
          ...(filters.event !== undefined ? { event: filters.event } : {}),
          ...(filters.subscriber !== undefined ? { subscriber: filters.subscriber } : {}),
        });
      }
      print({ purged }, () => `purged ${purged} dead letter${purged === 1 ? '' : 's'}`);
      return 0;
    }
  }
}

function listLine(letter: Record<string, Json>): string {
  const when = typeof letter['deadAt'] === 'number' ? new Date(letter['deadAt']).toISOString() : '?';
  const error = typeof letter['lastError'] === 'string' ? letter['lastError'].replace(/\s+/g, ' ').slice(0, 100) : '';
  return `${String(letter['id'])}  ${when}  ${String(letter['event'])} → ${String(letter['subscriber'])}  ${String(letter['reason'])}, ${String(letter['attemptCount'])} attempt(s)  ${error}`;
}

function filtersOf(values: Values): Filters | null {
  const number = (name: string): number | undefined | null => {
    const text = values[name];
    if (text === undefined) return undefined;
    return typeof text === 'string' && /^\d{1,9}$/.test(text) ? Number(text) : null;
  };
  const limit = number('limit');
  const offset = number('offset');
  if (limit === null || offset === null) return null;
  return {
    ...(typeof values['event'] === 'string' ? { event: values['event'] } : {}),
    ...(typeof values['subscriber'] === 'string' ? { subscriber: values['subscriber'] } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(offset !== undefined ? { offset } : {}),
  };
}

function httpClient(base: string, key: string | undefined): DeadLetterClient {
  if (!key) throw new Error('--url needs the admin API key: --key KEY or PIPEC_ADMIN_API_KEY');
  const root = `${base.replace(/\/+$/, '')}/_pipec/dead-letters`;
  const call = async (
    method: string,
    route: string,
    query: Record<string, string | number | undefined> = {},
  ): Promise<{ status: number; body: Record<string, Json> }> => {
    const url = new URL(`${root}${route}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, Json>;
    if (res.status >= 400 && res.status !== 404)
      throw new Error(`${res.status} ${typeof body['error'] === 'string' ? body['error'] : res.statusText}`);
    return { status: res.status, body };
  };
  const found = (answer: { status: number; body: Record<string, Json> }, what: string): Record<string, Json> => {
    if (answer.status === 404)
      throw new Error(typeof answer.body['error'] === 'string' ? answer.body['error'] : `not found: ${what}`);
    return answer.body;
  };
  return {
    async list(filters) {
      return found(await call('GET', '', { ...filters }), 'dead letters')['deadLetters'] as Array<Record<string, Json>>;
    },
    async show(id) {
      const answer = await call('GET', `/${encodeURIComponent(id)}`);
      return answer.status === 404 ? null : answer.body;
    },
    async replay(id) {
      return found(await call('POST', `/${encodeURIComponent(id)}/replay`), id) as { eventId: string };
    },
    async purge(query) {
      const answer =
        query.id !== undefined
          ? await call('DELETE', `/${encodeURIComponent(query.id)}`)
          : await call(
              'DELETE',
              '',
              query.event === undefined && query.subscriber === undefined
                ? { all: 'true' }
                : { event: query.event, subscriber: query.subscriber },
            );
      return Number(found(answer, 'dead letters')['purged'] ?? 0);
    },
    async close() {},
  };
}

interface BackendsModule {
  createBackends(opts: {
    dataDir: string;
    env: NodeJS.ProcessEnv;
    clock: { now(): number };
    logger: unknown;
    startWaitMs?: number;
  }): Promise<{
    deadLetters: {
      list(q: Filters): Promise<Array<Record<string, Json>>>;
      get(id: string): Promise<Record<string, Json> | null>;
      replay(id: string): Promise<{ eventId: string }>;
      purge(q: { id?: string; event?: string; subscriber?: string }): Promise<number>;
    };
    availability: { unavailable(): ReadonlyArray<{ backend: string; reason: string }> };
    close(): Promise<void>;
  }>;
}

/** The backends of PIPEC_STORE / PIPEC_BROKER / PIPEC_DATA_DIR, opened from pipec's compiled runtime. */
async function directClient(): Promise<DeadLetterClient> {
  const root = packageRoot();
  const backendsModule = (await importModule(
    pathToFileURL(path.join(root, 'dist', 'runtime', 'backends', 'index.js')).href,
  )) as BackendsModule;
  const { pino } = (await importModule('pino')) as { pino: (opts: object) => unknown };
  const backends = await backendsModule.createBackends({
    dataDir: process.env['PIPEC_DATA_DIR'] ?? './.pipec-data',
    env: process.env,
    clock: { now: () => Date.now() },
    logger: pino({ level: 'silent' }),
    startWaitMs: 10_000,
  });
  const missing = backends.availability.unavailable();
  if (missing.length > 0) {
    await backends.close();
    throw new Error(`unreachable: ${missing.map((m) => `${m.backend} (${m.reason})`).join(', ')}`);
  }
  const store = backends.deadLetters;
  return {
    list: (filters) => store.list(filters),
    show: (id) => store.get(id),
    replay: (id) => store.replay(id),
    purge: (query) => store.purge(query),
    close: () => backends.close(),
  };
}

function usage(output: Output): number {
  output.err(`usage: ${USAGE}\nRun with --help for details.`);
  return 2;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
