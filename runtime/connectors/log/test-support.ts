/** Test support of `log`: its message-use scenario. */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `log` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { message: 'hello', level: 'info' },
  ctx: fakeContext().ctx,
});
