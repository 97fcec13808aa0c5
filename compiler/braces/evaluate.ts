/**
 * `pipec eval`: compiles one expression (message shape unknown, globals from the sample) and runs
 * it over sample data with the real run-time library. This is the only place an expression runs
 * inside the compiler; generated services run the same emitted JavaScript.
 * In: expression source + sample input. Out: the value, or diagnostics, or a run-time error.
 */
import * as B from '../../runtime/braces/index.js';
import { PipeError } from '../../runtime/errors.js';
import type { Json } from '../../runtime/types.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { analyze } from './analyze.js';
import { Emitter } from './emit.js';

export interface EvaluateInput {
  readonly message?: Json;
  readonly globals?: Record<string, Json>;
  readonly now?: () => number;
  /** Folder for FILEEXISTS / FILESIZE (default: the current directory). */
  readonly workDir?: string;
}

export interface EvaluateResult {
  readonly value?: Json;
  readonly diagnostics: readonly Diagnostic[];
  readonly error?: { readonly code: string; readonly message: string };
}

type Compiled = (b: typeof B, message: Json, ctx: unknown) => Json | undefined;

/**
 * Compiles and runs one expression.
 * @example evaluateExpression('SUM(message.a, 2)', { message: { a: 1 } }).value // 3
 */
export function evaluateExpression(source: string, input: EvaluateInput): EvaluateResult {
  const globals = input.globals ?? {};
  const globalTypes: Record<string, PipeType> = Object.create(null) as Record<string, PipeType>;
  for (const name of Object.keys(globals)) globalTypes[name] = UNKNOWN;
  const { expr, check, diagnostics } = analyze(source, 0, undefined, {
    file: '<eval>',
    message: UNKNOWN,
    globals: globalTypes,
    accounts: {},
    steps: {},
  });
  if (!expr || !check || hasErrors(diagnostics)) return { diagnostics };
  const js = new Emitter(check.calls).emit(expr);
  // The emitted text contains only JSON literals and library calls (see emit.ts), never user code.
  const run = new Function('B', 'message', 'ctx', `"use strict";\nreturn (${js});`) as Compiled;
  const now = input.now ?? (() => Date.now());
  const ctx = {
    globals,
    accounts: {},
    steps: {},
    metadata: {
      pipeline: { name: 'eval' },
      execution: { key: 'eval', startTimestamp: now(), timeout: 30000, redelivery: false },
    },
    services: { clock: { now } },
    workDir: input.workDir ?? '.',
  };
  try {
    const value = run(B, input.message ?? null, ctx);
    return { value: value === undefined ? null : value, diagnostics };
  } catch (err) {
    if (err instanceof PipeError) return { diagnostics, error: { code: err.kind, message: err.message } };
    if (err instanceof RangeError) return { diagnostics, error: { code: 'LIMIT', message: err.message } };
    throw err;
  }
}
