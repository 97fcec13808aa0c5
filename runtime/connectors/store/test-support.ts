/** Test support of `store`: its message-use scenario. */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `store` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { target: 'things.find', query: {} },
  ctx: fakeContext().ctx,
});
