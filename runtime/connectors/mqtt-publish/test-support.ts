/** Test support of `mqtt-publish`: its message-use scenario (against the Mosquitto broker the tests use). */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';

const MQTT_URL = process.env['PIPEC_TEST_MQTT'] ?? 'mqtt://127.0.0.1:1883';

/** With `payload` given, `mqtt-publish` must not look at the step's message (see message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => ({
  params: {
    account: 'broker',
    accountFields: { url: MQTT_URL },
    topic: `pipec-message-use/${process.pid}`,
    payload: { a: 1 },
  },
  ctx: fakeContext().ctx,
});
