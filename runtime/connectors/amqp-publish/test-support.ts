/** Test support of `amqp-publish`: its message-use scenario (against the RabbitMQ server the tests use). */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

const AMQP_URL = process.env['PIPEC_TEST_AMQP'] ?? 'amqp://guest:guest@127.0.0.1:5672';

/** With `payload` given, `amqp-publish` must not look at the step's message (see message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: {
    account: 'rabbit',
    accountFields: { url: AMQP_URL },
    // No queue has this name: with mandatory off the broker confirms and drops it.
    'routing-key': `pipec-message-use-${process.pid}`,
    mandatory: false,
    payload: { a: 1 },
  },
  ctx: fakeContext().ctx,
});
