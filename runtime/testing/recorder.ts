/**
 * What one test run observes, through the step hooks of runtime/steps.ts: which steps ran (with
 * their parameters and outputs), which branches were taken, which events were published, and which
 * steps would have reached the network without a mock. It also answers the `mock` hook. One
 * recorder per test; nothing is shared between tests.
 *
 * The network rule is the connectors' own (`x-pipe-test.network` in their schemas, carried by the
 * suite): a step whose rule matches its evaluated parameters must be mocked (`rest` always;
 * `agent` unless its model is an offline `mock:` model with no tools); every other step runs for
 * real on the test's own temporary backends.
 */
import AjvModule, { type ValidateFunction } from 'ajv';
import { PipeError } from '../errors.js';
import type { ChoiceInfo, StepHooks, StepInfo } from '../steps.js';
import type { EventBroker, ExecutionContext, Json, Subscription } from '../types.js';
import { branchKey, stepKey, type ConnectorTestFacts, type MockSpec } from './test-plan.js';

// CommonJS module: its class sits on `.default` under NodeNext.
const Ajv = AjvModule.default;

export interface StepCall {
  readonly key: string;
  readonly pipeline: string;
  readonly label?: string;
  readonly connector: string;
  readonly source: string;
  readonly params: Json;
  readonly output?: Json;
  readonly failed: boolean;
  readonly mocked: boolean;
}

export interface PublishedEvent {
  readonly event: string;
  readonly payload: Json;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parameters as JSON (they are evaluated JSON already; compiled artifacts such as validators are dropped). */
function asJson(value: unknown): Json {
  try {
    return JSON.parse(JSON.stringify(value ?? null)) as Json;
  } catch {
    return null;
  }
}

/** The network rules of the suite's connectors, their conditions compiled once. */
export class NetworkRules {
  private readonly rules = new Map<string, { why: string; when?: ValidateFunction }[]>();

  constructor(connectors: Readonly<Record<string, ConnectorTestFacts>> = {}) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    for (const [name, facts] of Object.entries(connectors)) {
      const network = facts.network ?? [];
      if (network.length > 0)
        this.rules.set(
          name,
          network.map((r) => ({
            why: r.why,
            ...(r.when !== undefined ? { when: ajv.compile(r.when as object) } : {}),
          })),
        );
    }
  }

  /** Why a step may not run in a test, or undefined when it may. */
  reason(step: StepInfo, params: unknown): string | undefined {
    const rules = this.rules.get(step.connector);
    return rules?.find((rule) => rule.when === undefined || rule.when(params ?? {}))?.why;
  }
}

export class TestRecorder {
  readonly calls: StepCall[] = [];
  readonly published: PublishedEvent[] = [];
  readonly stepsRun = new Set<string>();
  readonly branchesTaken = new Set<string>();
  /** `pipeline: branch` descriptions, in the order taken (for reports). */
  readonly branchTrail: string[] = [];
  /** Steps that would have reached the network: the test fails whatever the pipeline did with the error. */
  readonly unmocked: string[] = [];
  /** Labelled step outputs per pipeline (the last execution's `step.<label>` values). */
  readonly stepOutputs = new Map<string, Record<string, Json>>();
  private readonly mocks = new Map<string, MockSpec>();

  constructor(
    mocks: readonly MockSpec[],
    private readonly network: NetworkRules = new NetworkRules(),
    private readonly connectors: Readonly<Record<string, ConnectorTestFacts>> = {},
  ) {
    for (const mock of mocks) for (const key of mock.keys) this.mocks.set(key, mock);
  }

  /** The hooks to install on the service (createService `stepHooks`). */
  hooks(): StepHooks {
    return {
      mock: (step, params, message) => this.mock(step, params, message),
      after: (step, _token, outcome, output, _error, ctx, params) => {
        const key = stepKey(step.source, step.connector, step.label);
        this.stepsRun.add(key);
        this.stepOutputs.set(ctx.pipeline, ctx.steps);
        const mocked = this.mocks.has(key);
        this.calls.push({
          key,
          pipeline: ctx.pipeline,
          ...(step.label !== undefined ? { label: step.label } : {}),
          connector: step.connector,
          source: step.source,
          params: asJson(params),
          ...(output !== undefined ? { output } : {}),
          failed: outcome === 'error',
          mocked,
        });
        const publishes =
          mocked && outcome === 'ok' && Object.hasOwn(this.connectors, step.connector)
            ? this.connectors[step.connector]?.publishes
            : undefined;
        if (publishes && isObject(params) && typeof params[publishes.event] === 'string') {
          // A mocked publish is captured instead of published: it still counts as published.
          const payload = publishes.payload === undefined ? undefined : params[publishes.payload];
          this.published.push({
            event: params[publishes.event] as string,
            payload: asJson(payload === undefined ? output : payload),
          });
        }
      },
      branch: (choice: ChoiceInfo, index: number, ctx: ExecutionContext) => {
        this.branchesTaken.add(branchKey(choice.source, index));
        this.branchTrail.push(`${ctx.pipeline}: ${choice.branches[index] ?? `#${index}`}`);
      },
    };
  }

  /**
   * The mocked output, at once (a promise would make the steps of an all-synchronous pipeline
   * asynchronous); a mocked failure is thrown, and the step fails with it as with a real one.
   */
  private mock(step: StepInfo, params: unknown, message: Json): Json | undefined {
    const spec = this.mocks.get(stepKey(step.source, step.connector, step.label));
    if (spec) {
      if ('output' in spec.result) return structuredClone(spec.result.output);
      if ('passThrough' in spec.result) return message;
      const { code, details } = spec.result.error;
      // `fails { kind: "CIRCUIT_OPEN", … }` mocks a failure of that kind (what `catch` routes on).
      const { kind, ...rest } = details ?? {};
      const mockedKind = typeof kind === 'string' && /^[A-Z][A-Z0-9_]*$/.test(kind) ? kind : 'MOCKED_FAILURE';
      const fields = typeof kind === 'string' && mockedKind === kind ? rest : details;
      throw new PipeError(spec.result.error.message, {
        code,
        kind: mockedKind,
        ...(fields && Object.keys(fields).length > 0 ? { details: { ...fields } } : {}),
      });
    }
    const reason = this.network.reason(step, params);
    if (reason === undefined) return undefined;
    const name = step.label ?? step.connector;
    this.unmocked.push(
      `step \`${name}\` (${step.connector}, ${step.source}) was not mocked and ${reason}: tests never reach the network — add \`mock ${step.connector} ${step.label ?? 'LABEL'} { … }\``,
    );
    throw new PipeError(`step \`${name}\` is not mocked (tests never reach the network)`, {
      code: 500,
      kind: 'NOT_MOCKED',
    });
  }

  /** The broker the service publishes through: every event is recorded, then handed on. */
  recordingBroker(inner: EventBroker): EventBroker {
    return {
      publish: async (name, payload, headers) => {
        this.published.push({ event: name, payload: asJson(payload) });
        await inner.publish(name, payload, headers);
      },
      subscribe: (subscriber, event, handler, opts): Promise<Subscription> =>
        inner.subscribe(subscriber, event, handler, opts),
      close: () => inner.close(),
    };
  }
}
