/**
 * The dead-letter admin endpoint (what `pipec dead-letters --url` talks to), on when
 * PIPEC_ADMIN_API_KEY is set and absent otherwise. Every call needs `Authorization: Bearer <key>`,
 * compared in constant time.
 *
 *   GET    /_pipec/dead-letters?event=&subscriber=&limit=&offset=   list (oldest first, no payloads)
 *   GET    /_pipec/dead-letters/:id                                 one, with payload and attempts
 *   POST   /_pipec/dead-letters/:id/replay                          publish it again → { eventId }
 *   POST   /_pipec/dead-letters/replay?event=&subscriber=&limit=    replay a page → { replayed }
 *   DELETE /_pipec/dead-letters/:id                                 purge one → { purged }
 *   DELETE /_pipec/dead-letters?event=&subscriber=  or  ?all=true   purge many → { purged }
 */
import type { Context, Hono } from 'hono';
import { PipeError, asPipeError } from '../errors.js';
import type { Json } from '../types.js';
import { timingSafeEqualSecrets } from '../security/timing-safe.js';
import type { DeadLetterStore } from './backends-port.js';
import { ADMIN_PREFIX } from './health.js';
import type { Refuse } from './refusal.js';

const BASE = `${ADMIN_PREFIX}dead-letters`;

export interface DeadLetterRouteDeps {
  readonly deadLetters: DeadLetterStore;
  /** PIPEC_ADMIN_API_KEY; the routes exist only when it is set. */
  readonly apiKey: string;
  /** Answers a refused or failed call (with an id, logged; refusal.ts). */
  readonly refuse: Refuse;
}

export function registerDeadLetterRoutes(app: Hono, deps: DeadLetterRouteDeps): void {
  const guard =
    (handler: (c: Context) => Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      const header = c.req.header('authorization') ?? '';
      const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      if (!timingSafeEqualSecrets(given, deps.apiKey)) {
        const message = 'a valid admin API key is required (Authorization: Bearer …)';
        const refused = new PipeError(message, { code: 401, kind: 'UNAUTHORIZED' });
        return deps.refuse(refused, c.req.raw, { 'www-authenticate': 'Bearer realm="pipec-admin"' });
      }
      try {
        return await handler(c);
      } catch (err) {
        return deps.refuse(asPipeError(err), c.req.raw);
      }
    };

  const filters = (c: Context): { event?: string; subscriber?: string } => {
    const event = c.req.query('event');
    const subscriber = c.req.query('subscriber');
    return { ...(event ? { event } : {}), ...(subscriber ? { subscriber } : {}) };
  };
  const page = (c: Context): { limit?: number; offset?: number } => {
    const number = (name: string): number | undefined => {
      const text = c.req.query(name);
      if (text === undefined) return undefined;
      const value = Number(text);
      if (!/^\d{1,9}$/.test(text))
        throw new PipeError(`${name} must be a whole number`, { code: 400, kind: 'BAD_QUERY' });
      return value;
    };
    const limit = number('limit');
    const offset = number('offset');
    return { ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) };
  };
  const json = (c: Context, body: unknown, status: 200 | 201 = 200): Response => c.json(body as Json, status);

  app.get(
    BASE,
    guard(async (c) => json(c, { deadLetters: await deps.deadLetters.list({ ...filters(c), ...page(c) }) })),
  );

  app.post(
    `${BASE}/replay`,
    guard(async (c) => {
      const letters = await deps.deadLetters.list({ ...filters(c), ...page(c) });
      const replayed: Array<{ id: string; eventId: string }> = [];
      for (const letter of letters)
        replayed.push({ id: letter.id, eventId: (await deps.deadLetters.replay(letter.id)).eventId });
      return json(c, { replayed });
    }),
  );

  app.get(
    `${BASE}/:id`,
    guard(async (c) => {
      const id = c.req.param('id') ?? '';
      const letter = await deps.deadLetters.get(id);
      if (!letter) throw new PipeError(`no dead letter ${id}`, { code: 404, kind: 'NOT_FOUND' });
      return json(c, letter);
    }),
  );

  app.post(
    `${BASE}/:id/replay`,
    guard(async (c) => json(c, await deps.deadLetters.replay(c.req.param('id') ?? ''))),
  );

  app.delete(
    `${BASE}/:id`,
    guard(async (c) => json(c, { purged: await deps.deadLetters.purge({ id: c.req.param('id') ?? '' }) })),
  );

  app.delete(
    BASE,
    guard(async (c) => {
      const query = filters(c);
      if (query.event === undefined && query.subscriber === undefined && c.req.query('all') !== 'true') {
        throw new PipeError('name what to purge: ?event=, ?subscriber= or ?all=true', { code: 400, kind: 'BAD_QUERY' });
      }
      return json(c, { purged: await deps.deadLetters.purge(query) });
    }),
  );
}
