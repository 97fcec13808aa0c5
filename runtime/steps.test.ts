import { describe, expect, it } from 'vitest';
import { PipeError } from './errors.js';
import type { Json } from './types.js';
import { fakeContext } from './service/test-support/fake-context.js';
import { step, stepNow, type StepHooks, type StepInfo } from './steps.js';

const info: StepInfo = { label: 'calc', connector: 'json-generator', source: 'p.pipe:3', failOnError: true };
const double = (params: { n: number }): Json => params.n * 2;

function withHooks(hooks: StepHooks): ReturnType<typeof fakeContext>['ctx'] {
  return Object.assign(fakeContext().ctx, { hooks });
}

describe('stepNow (steps of an all-synchronous pipeline)', () => {
  it('returns the output at once and records it under the label', () => {
    const { ctx } = fakeContext();
    expect(stepNow(ctx, info, double, { n: 4 }, null)).toBe(8);
    expect(ctx.steps['calc']).toBe(8);
  });

  it('stays synchronous with hooks that wrap the connector or mock it', () => {
    const order: string[] = [];
    const around = withHooks({
      before: () => order.push('before'),
      around: (_step, _token, run) => {
        order.push('around');
        return run();
      },
      after: (_step, _token, outcome) => order.push(`after ${outcome}`),
    });
    expect(stepNow(around, info, double, (message: Json) => ({ n: message as number }), 5)).toBe(10);
    expect(order).toEqual(['before', 'around', 'after ok']);
    expect(stepNow(withHooks({ mock: () => 42 }), info, double, { n: 1 }, null)).toBe(42);
  });

  it('fails the step with the error a connector or mock throws', () => {
    const failing = withHooks({
      mock: () => {
        throw new Error('mocked failure');
      },
    });
    expect(() => stepNow(failing, info, double, { n: 1 }, null)).toThrow('mocked failure');
  });

  it('refuses a step that answered with a promise (a connector wrongly declared synchronous)', () => {
    const pending = withHooks({ mock: () => Promise.resolve(1) });
    expect(() => stepNow(pending, info, double, { n: 1 }, null)).toThrow('did not finish synchronously');
    // `step` itself hands such a promise on.
    expect(step(pending, info, double, { n: 1 }, null)).toBeInstanceOf(Promise);
  });
});

describe('a step whose backend is away', () => {
  it('ends the execution even with fail-on-error off, while other failures become its output', () => {
    const lenient: StepInfo = { label: 'save', connector: 'store', source: 'p.pipe:4', failOnError: false };
    const away = withHooks({
      mock: () => {
        throw new PipeError('postgres is unavailable', { code: 503, kind: 'BACKEND_UNAVAILABLE' });
      },
    });
    expect(() => stepNow(away, lenient, double, { n: 1 }, null)).toThrow('postgres is unavailable');
    const refused = withHooks({
      mock: () => {
        throw new PipeError('duplicate key', { code: 409, kind: 'DUPLICATE_KEY' });
      },
    });
    expect(stepNow(refused, lenient, double, { n: 1 }, null)).toMatchObject({ success: false, code: 409 });
  });
});

describe('a failing connector that quotes an account value', () => {
  const accounts = { llm: { type: 'secret-key', key: 'sk-live-0123456789' } };
  // A server that echoes the credential it refused, as some model APIs and proxies do.
  const echoing = (): Json => {
    throw new PipeError('The model API answered 401: invalid key sk-live-0123456789', {
      code: 502,
      kind: 'AGENT_MODEL_ERROR',
    });
  };

  it('fails the step with the value masked, in the error and in a failure output', () => {
    const strict = fakeContext({ accounts }).ctx;
    let thrown: unknown;
    try {
      stepNow(strict, info, echoing, {}, null);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PipeError);
    expect((thrown as PipeError).message).toBe('The model API answered 401: invalid key [REDACTED]');
    expect(thrown).toMatchObject({ code: 502, kind: 'AGENT_MODEL_ERROR', step: 'calc' });

    const lenient: StepInfo = { ...info, failOnError: false };
    const { ctx, logs } = fakeContext({ accounts });
    const output = stepNow(ctx, lenient, echoing, {}, null);
    expect(output).toMatchObject({ success: false, message: 'The model API answered 401: invalid key [REDACTED]' });
    expect(logs.text).toContain('invalid key [REDACTED]');
    expect(logs.text).not.toContain('sk-live-0123456789');
  });

  it('leaves an error without account values as it was', () => {
    const plain = new PipeError('duplicate key', { code: 409, kind: 'DUPLICATE_KEY', step: 'calc' });
    const ctx = fakeContext({ accounts }).ctx;
    let thrown: unknown;
    try {
      stepNow(
        ctx,
        info,
        () => {
          throw plain;
        },
        {},
        null,
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBe(plain);
  });
});
