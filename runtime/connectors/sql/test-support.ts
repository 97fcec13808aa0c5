/**
 * Fixtures for the `sql` connector's tests: the test databases (PostgreSQL PIPEC_TEST_POSTGRES,
 * MySQL/MariaDB PIPEC_TEST_MYSQL), a context whose connection registry the test closes, table
 * names no parallel test shares, and the message-use scenario (a query never reads the message).
 */
import { randomBytes } from 'node:crypto';
import { ConnectionRegistry } from '../../service/connections.js';
import { createLogger } from '../../service/logging.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { ExecutionContext } from '../../types.js';
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';

/** The test databases (the runtime imports nothing of test/: the same defaults as test/support/servers.ts). */
export const PG_URL = process.env['PIPEC_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_URL = process.env['PIPEC_TEST_MYSQL'] ?? 'mysql://root@127.0.0.1:3306/test';

export const DATABASES = [
  { dialect: 'postgres', url: PG_URL, port: 5432 },
  { dialect: 'mysql', url: MYSQL_URL, port: 3306 },
] as const;

/** A table name of this run only: `sql_<what>_<random>`. */
export function uniqueTable(what: string): string {
  return `sql_${what}_${randomBytes(4).toString('hex')}`;
}

export interface SqlTestContext {
  readonly ctx: ExecutionContext;
  readonly connections: ConnectionRegistry;
}

export function sqlTestContext(): SqlTestContext {
  const connections = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
  const base = fakeContext().ctx;
  return { ctx: { ...base, services: { ...base.services, connections } }, connections };
}

export const messageUseScenario: MessageUseScenario = () => ({
  params: { account: 'db', accountFields: { url: PG_URL }, sql: 'SELECT 1 AS one' },
  ctx: sqlTestContext().ctx,
});
