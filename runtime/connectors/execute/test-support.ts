/** Test support of `execute`: its message-use scenario. */
import type { Json } from '../../types.js';
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

/** A run of `execute` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: { pipeline: 'other', payload: { a: 1 } },
  ctx: fakeContext({
    services: { ...fakeContext().ctx.services, execute: async (_name: string, payload: Json) => ({ echoed: payload }) },
  }).ctx,
});
