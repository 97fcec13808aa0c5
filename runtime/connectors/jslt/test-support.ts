/** Test support of `jslt`: its message-use scenario. */
import type { Json } from '../../types.js';
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `jslt` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { transform: ((input: Json) => input) as unknown as Json, payload: { a: 1 } },
  ctx: fakeContext().ctx,
});
