/** Test support of `redis`: its message-use scenario (against the Redis server the tests use). */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

const REDIS_URL = process.env['PIPEC_TEST_REDIS'] ?? 'redis://127.0.0.1:6379';

/** A `publish` with `message` given must not look at the step's message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: {
    operation: 'publish',
    account: 'cache',
    accountFields: { url: REDIS_URL },
    channel: `pipec-message-use-${process.pid}`,
    message: { a: 1 },
  },
  ctx: fakeContext().ctx,
});
