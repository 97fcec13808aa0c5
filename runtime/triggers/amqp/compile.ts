/**
 * Compile-time part of the `amqp` trigger: the consumer (account, queue, prefetch, redelivery and
 * dead-lettering) becomes the AmqpTriggerSpec, the body schema a validator; the first message is
 * the delivered message with the body's shape.
 */
import type { TriggerCompiler } from '../../../compiler/connectors/hook-api.js';
import { eventBackoff } from '../event/compile.js';

/** Defaults of `backoff` for broker triggers: 1 s doubling to 30 s (the message waits unacknowledged meanwhile). */
export const BROKER_BACKOFF_DEFAULTS = { initial: 1000, max: 30_000, multiplier: 2 };

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    // The account's existence and type are checked from the schema (`x-pipe-ref`, `x-pipe-account-types`).
    const account = read.str('account', '');
    const body = api.compileSchemaParam(api.entryOf(trigger.config, 'body'), ctx, `${ctx.pipeline}-body`);
    const backoff =
      eventBackoff(api.entryOf(trigger.config, 'backoff'), ctx, api, BROKER_BACKOFF_DEFAULTS) ??
      JSON.stringify({
        initialMs: BROKER_BACKOFF_DEFAULTS.initial,
        maxMs: BROKER_BACKOFF_DEFAULTS.max,
        multiplier: BROKER_BACKOFF_DEFAULTS.multiplier,
      });
    const deadLetterExchange = read.str('dead-letter-exchange', '');
    const hasDeadLetterExchange = api.entryOf(trigger.config, 'dead-letter-exchange') !== undefined;
    const deadLetterRoutingKey = api.entryOf(trigger.config, 'dead-letter-routing-key');
    const deadLetterRoutingKeyText = read.str('dead-letter-routing-key', '');
    const { types } = api;
    return {
      spec: {
        account: JSON.stringify(account),
        queue: JSON.stringify(read.str('queue', '')),
        declare: String(read.bool('declare', false)),
        prefetch: String(read.num('prefetch', 10)),
        maxDeliveries: String(read.num('max-deliveries', 3)),
        backoff,
        maxSize: String(read.num('max-size', 5 * 1024 * 1024)),
        ...(hasDeadLetterExchange ? { deadLetterExchange: JSON.stringify(deadLetterExchange) } : {}),
        ...(deadLetterRoutingKey ? { deadLetterRoutingKey: JSON.stringify(deadLetterRoutingKeyText) } : {}),
        ...(body.validator ? { validateBody: body.validator } : {}),
      },
      message: types.closed(
        {
          body: body.type,
          headers: types.objectOf({}, true),
          exchange: types.STRING,
          routingKey: types.STRING,
          redelivered: types.BOOLEAN,
          messageId: types.STRING,
          correlationId: types.STRING,
          contentType: types.STRING,
          replyTo: types.STRING,
          timestamp: types.INTEGER,
        },
        ['messageId', 'correlationId', 'contentType', 'replyTo', 'timestamp'],
      ),
    };
  },
};
