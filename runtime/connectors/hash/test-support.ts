/** Test support of `hash`: its message-use scenario. */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `hash` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { operation: 'sha256', value: 'text' },
  ctx: fakeContext().ctx,
});
