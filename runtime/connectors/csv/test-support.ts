/** Test support of `csv`: its message-use scenario. */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `csv` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { operation: 'parse', text: 'a,b\n1,2\n' },
  ctx: fakeContext().ctx,
});
