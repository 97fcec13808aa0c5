/**
 * The shape of a connector's message-use scenario (`messageUseScenario` in its folder's
 * test-support.ts): parameters and a context for one run that, by the schema's `"message"`
 * declaration, does not read its incoming message. runtime/connectors/message-use.test.ts finds
 * and runs every folder's scenario.
 */
import type { ExecutionContext, JsonObject } from '../../types.js';

/** What the test provides: a scratch folder, and a local HTTP server answering `{"ok":true}`. */
export interface ScenarioEnv {
  readonly workDir: string;
  readonly baseUrl: string;
}

export type MessageUseScenario = (env: ScenarioEnv) => { params: JsonObject; ctx: ExecutionContext };
