/** Test support of `agent`: its message-use scenario. */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { testContext as agentContext } from '../../agent/test-support/context.js';

/** A run of `agent` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = ({ workDir }) => ({
  params: { model: 'mock:any', user: 'hi' },
  ctx: agentContext(workDir),
});
