/**
 * Test support of `email`: its message-use scenario. That test (runtime/connectors/message-use.test.ts)
 * checks only that `run` never looks at its message, and has no SMTP server: the scenario's
 * connections hand out nodemailer's own JSON transport, which builds the message and sends it
 * nowhere. The connector itself is tested against a real SMTP server in email.test.ts.
 */
import nodemailer from 'nodemailer';
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { Connections } from '../../types.js';

const connections: Connections = {
  get: <T>() => Promise.resolve(nodemailer.createTransport({ jsonTransport: true }) as T),
  drop: () => Promise.resolve(),
  report: () => undefined,
  guard: (_target, call) => call(),
};

/** A run of `email` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => {
  const { ctx } = fakeContext();
  return {
    params: {
      account: 'mail',
      accountFields: { url: 'smtp://localhost:587' },
      from: 'a@example.com',
      to: 'b@example.com',
      subject: 'scenario',
      text: 'hello',
    },
    ctx: { ...ctx, services: { ...ctx.services, connections } },
  };
};
