/**
 * Failure policies read from the schemas: a connector added as a folder (here a fixture with
 * `x-pipe-errors` and no `x-pipe-retry`, as the connectors arriving on other branches have) gets
 * `retry` with defaults derived from its error kinds, and routing on its kinds is checked, with no
 * edit of the compiler.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../compile.js';
import { createConnectorRegistry, type ConnectorSchema } from '../connectors/connector-registry.js';
import { loadRegistry } from '../connectors/load-registry.js';
import type { ConnectorPlan, PlanStep } from '../lower/plan.js';

const own = await loadRegistry({ compileParts: true });
const QUEUE_SEND: ConnectorSchema = {
  name: 'queue-send',
  kind: 'connector',
  summary: 'Sends a message to a queue (fixture of the policies test)',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['queue'],
    properties: { queue: { type: 'string', description: 'The queue.' } },
  },
  output: 'input',
  'x-pipe-errors': [
    { kind: 'BROKER_UNREACHABLE', status: 503, when: 'the broker did not answer' },
    { kind: 'BROKER_TIMEOUT', status: 504, when: 'the broker was too slow' },
    { kind: 'BAD_MESSAGE', status: 400, when: 'the broker refused the message' },
  ],
};
const registry = createConnectorRegistry([
  ...[...own.connectors.values()].map((schema) => ({
    schema,
    ...(own.connectorCompilers.get(schema.name) ? { compile: own.connectorCompilers.get(schema.name) } : {}),
  })),
  ...[...own.triggers.values()].map((schema) => ({
    schema,
    ...(own.triggerCompilers.get(schema.name) ? { compile: own.triggerCompilers.get(schema.name) } : {}),
  })),
  QUEUE_SEND,
]);

function check(steps: string) {
  const text = `pipeline p {\n  trigger http { method: POST, path: "/p" }\n${steps}\n  respond 200 {}\n}\n`;
  const result = compile({
    files: [{ path: '/p/p.pipe', text }],
    registry,
    host: { readFile: () => undefined },
    emit: false,
  });
  const connectors: ConnectorPlan[] = [];
  const walk = (list: readonly PlanStep[]): void => {
    for (const step of list) {
      if (step.kind === 'connector') connectors.push(step);
      if (step.kind === 'try') {
        walk(step.body);
        walk(step.catchBody);
      }
    }
  };
  walk(result.plan?.pipelines[0]?.steps ?? []);
  return { codes: result.diagnostics.map((d) => d.code), connectors };
}

describe('failure policies from the schemas', () => {
  it('a connector without x-pipe-retry retries the kinds its x-pipe-errors lists with a transient status', () => {
    const { codes, connectors } = check('  queue-send { queue: "q", retry: 4 }');
    expect(codes).toEqual([]);
    expect(connectors[0]?.retry).toMatchObject({
      attempts: 4,
      kinds: ['BROKER_UNREACHABLE', 'BROKER_TIMEOUT'],
      statuses: [408, 429, 502, 503, 504],
    });
    // A step with retry no longer runs synchronously.
    expect(connectors[0]?.synchronous).toBe(false);
  });

  it('its kinds are checked in retry.on and in the catch that routes on them', () => {
    expect(check('  queue-send { queue: "q", retry: { on: [BROKER_UNREACHABLE] } }').codes).toEqual([]);
    expect(check('  queue-send { queue: "q", retry: { on: [BROKER_DOWN] } }').codes).toEqual(['PIPE6007']);
    const routing = (kind: string) =>
      check(
        `  try { queue-send { queue: "q" } } catch {\n    choice {\n      when {{ message.kind == "${kind}" }} { respond 503 {} }\n      otherwise { respond 500 {} }\n    }\n  }`,
      ).codes;
    expect(routing('BAD_MESSAGE')).toEqual([]);
    expect(routing('SHUTDOWN')).toEqual([]);
    expect(routing('REST_UNREACHABLE')).toEqual(['PIPE6007']);
  });

  it('a step that runs another pipeline can fail in any way: routing after it is not checked', () => {
    const text = 'pipeline q {\n  trigger http { method: POST, path: "/q" }\n  respond 200 {}\n}\n';
    const steps =
      '  try { execute { pipeline: q, payload: {} } } catch {\n    choice {\n      when {{ message.kind == "ANYTHING" }} { respond 503 {} }\n      otherwise { respond 500 {} }\n    }\n  }';
    const result = compile({
      files: [
        {
          path: '/p/p.pipe',
          text: `${text}pipeline p {\n  trigger http { method: POST, path: "/p" }\n${steps}\n  respond 200 {}\n}\n`,
        },
      ],
      registry,
      host: { readFile: () => undefined },
      emit: false,
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual([]);
  });

  it('a connector whose failures are all permanent refuses retry', () => {
    expect(check('  jolt { spec: [{ operation: "shift", spec: { body: { a: "b" } } }], retry: 2 }').codes).toEqual([
      'PIPE3012',
    ]);
  });
});
