/**
 * Compile-time part of the `mqtt` trigger: the subscription (account, topic filters, the session's
 * client id, redelivery and dead-lettering) becomes the MqttTriggerSpec, the body schema a
 * validator; the first message is the delivered message with the body's shape.
 */
import type { TriggerCompiler } from '../../../compiler/connectors/hook-api.js';
import { eventBackoff } from '../event/compile.js';

const BACKOFF_DEFAULTS = { initial: 1000, max: 10_000, multiplier: 2 };

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    // The account's existence and type are checked from the schema (`x-pipe-ref`, `x-pipe-account-types`).
    const account = read.str('account', '');
    const topicsValue = api.entryOf(trigger.config, 'topics');
    const topics = topicsValue ? api.staticJson(topicsValue) : undefined;
    const body = api.compileSchemaParam(api.entryOf(trigger.config, 'body'), ctx, `${ctx.pipeline}-body`);
    const backoff =
      eventBackoff(api.entryOf(trigger.config, 'backoff'), ctx, api, BACKOFF_DEFAULTS) ??
      JSON.stringify({
        initialMs: BACKOFF_DEFAULTS.initial,
        maxMs: BACKOFF_DEFAULTS.max,
        multiplier: BACKOFF_DEFAULTS.multiplier,
      });
    const deadLetterTopic = api.entryOf(trigger.config, 'dead-letter-topic');
    const { types } = api;
    return {
      spec: {
        account: JSON.stringify(account),
        topics: JSON.stringify(Array.isArray(topics) ? topics.filter((t) => typeof t === 'string') : []),
        clientId: JSON.stringify(read.str('client-id', `pipec-${ctx.pipeline}`)),
        sessionExpiryMs: String(read.num('session-expiry', 604_800_000)),
        keepaliveMs: String(read.num('keepalive', 60_000)),
        maxDeliveries: String(read.num('max-deliveries', 3)),
        backoff,
        maxSize: String(read.num('max-size', 5 * 1024 * 1024)),
        ...(deadLetterTopic ? { deadLetterTopic: JSON.stringify(read.str('dead-letter-topic', '')) } : {}),
        ...(body.validator ? { validateBody: body.validator } : {}),
      },
      message: types.closed(
        {
          topic: types.STRING,
          body: body.type,
          qos: types.INTEGER,
          retain: types.BOOLEAN,
          redelivered: types.BOOLEAN,
          headers: types.objectOf({}, true),
          contentType: types.STRING,
        },
        ['contentType'],
      ),
    };
  },
};
