/**
 * What one test run observes, through the step hooks of runtime/steps.ts: which steps ran (with
 * their parameters and outputs), which branches were taken, which events were published, and which
 * steps would have reached the network without a mock. It also answers the `mock` hook. One
 * recorder per test; nothing is shared between tests.
 *
 * The network rule: `rest` always, and `agent` unless its model is an offline `mock:` model with no
 * tools, must be mocked; every other connector (store, publish, execute, jolt, …) runs for real on
 * the test's own temporary backends.
 */
import { PipeError } from '../errors.js';
import type { ChoiceInfo, StepHooks, StepInfo } from '../steps.js';
import type { EventBroker, ExecutionContext, Json, Subscription } from '../types.js';
import { branchKey, stepKey, type MockSpec } from './test-plan.js';

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

/** Why a step may not run in a test, or undefined when it may. */
export function networkReason(step: StepInfo, params: unknown): string | undefined {
  if (step.connector === 'rest') return 'it calls an HTTP endpoint';
  if (step.connector === 'agent') {
    const model = isObject(params) ? params['model'] : undefined;
    const tools = isObject(params) ? params['tools'] : undefined;
    if (typeof model !== 'string' || !model.startsWith('mock:')) return 'it calls a language model';
    if (Array.isArray(tools) && tools.length > 0) return 'it calls MCP tools';
  }
  return undefined;
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

  constructor(mocks: readonly MockSpec[]) {
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
        if (mocked && step.connector === 'publish' && outcome === 'ok' && isObject(params) && typeof params['event'] === 'string') {
          // A mocked publish is captured instead of published: it still counts as published.
          this.published.push({ event: params['event'], payload: asJson(params['payload'] === undefined ? output : params['payload']) });
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
      throw new PipeError(spec.result.error.message, { code, kind: 'MOCKED_FAILURE', ...(details ? { details: { ...details } } : {}) });
    }
    const reason = networkReason(step, params);
    if (reason === undefined) return undefined;
    const name = step.label ?? step.connector;
    this.unmocked.push(`step \`${name}\` (${step.connector}, ${step.source}) was not mocked and ${reason}: tests never reach the network — add \`mock ${step.connector} ${step.label ?? 'LABEL'} { … }\``);
    throw new PipeError(`step \`${name}\` is not mocked (tests never reach the network)`, { code: 500, kind: 'NOT_MOCKED' });
  }

  /** The broker the service publishes through: every event is recorded, then handed on. */
  recordingBroker(inner: EventBroker): EventBroker {
    return {
      publish: async (name, payload, headers) => {
        this.published.push({ event: name, payload: asJson(payload) });
        await inner.publish(name, payload, headers);
      },
      subscribe: (subscriber, event, handler, opts): Promise<Subscription> => inner.subscribe(subscriber, event, handler, opts),
      close: () => inner.close(),
    };
  }
}
