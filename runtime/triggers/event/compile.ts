/**
 * Compile-time part of the `event` trigger: the subscription (event name, expiration, redelivery
 * limits) and the payload schema (compiled to a validator) become the EventTriggerSpec; the first
 * message is the payload, with the schema's shape.
 */
import type { TriggerCompiler } from '../../../compiler/connectors/hook-api.js';

export const compile: TriggerCompiler = {
  trigger({ trigger, ctx }, api) {
    const read = api.reader(trigger.config);
    const body = api.compileSchemaParam(api.entryOf(trigger.config, 'body'), ctx, `${ctx.pipeline}-body`);
    const maxDeliveries = read.num('max-deliveries', read.bool('redelivery', true) ? 5 : 1);
    return {
      spec: {
        event: JSON.stringify(read.str('name', '')),
        expiration: String(read.num('expiration', 600000)),
        maxTimeout: String(read.num('max-timeout', 30000)),
        maxDeliveries: String(maxDeliveries),
        ...(body.validator ? { validateBody: body.validator } : {}),
      },
      message: body.type,
    };
  },
};
