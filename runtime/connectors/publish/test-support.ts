/** Test support of `publish`: its message-use scenario. */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `publish` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { event: 'done', payload: { a: 1 } },
  ctx: fakeContext().ctx,
});
