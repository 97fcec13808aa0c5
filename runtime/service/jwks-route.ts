/**
 * `GET /.well-known/jwks.json`: the public keys of the service's signing accounts (`private-key`),
 * so clients and other services can verify the tokens it issues. Served only when such an account
 * exists; computed once (keys do not change while the service runs).
 */
import type { Hono } from 'hono';
import { publicJwks } from '../security/jwks.js';
import type { Json } from '../types.js';

export function registerJwksRoute(app: Hono, accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>): void {
  const signing = Object.values(accounts).some((a) => a['type'] === 'private-key');
  if (!signing) return;
  let jwks: Promise<{ keys: unknown[] }> | undefined;
  app.get('/.well-known/jwks.json', async (c) => {
    jwks ??= publicJwks(accounts);
    c.header('cache-control', 'public, max-age=300');
    return c.json(await jwks);
  });
}
