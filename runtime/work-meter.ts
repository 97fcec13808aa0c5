/**
 * The execution deadline inside synchronous evaluation. A CPU-bound step (a JSLT program that
 * recurses, a JSONPath scan of a large body) holds the event loop, so the engine's timer cannot
 * fire until it returns; the evaluators' loops call `tick()` instead, and every CHECK_EVERY ticks
 * one clock reading decides whether the execution's time is up. Then the step fails with the
 * engine's own timeout error.
 *
 * The deadline is the one of the execution whose synchronous code is running now: the engine and
 * `step()` set it around the synchronous part of their call (`enterDeadline` / `leaveDeadline`,
 * nested on a small stack) and nothing asynchronous runs in between, so executions cannot see
 * each other's. With none set, `tick()` only counts.
 */
import { performance } from 'node:perf_hooks';
import { PipeError } from './errors.js';

/** Ticks between clock readings: a reading costs ≈ 30 ns, a tick a decrement. */
const CHECK_EVERY = 2048;

let deadline = Number.POSITIVE_INFINITY;
let timeoutMs = 0;
let countdown = CHECK_EVERY;
/** Saved (deadline, timeout) pairs of the enclosing evaluations. */
const saved: number[] = [];

/** The error of an execution that ran out of time (also the engine's, when its timer fires). */
export function executionTimeoutError(ms: number): PipeError {
  return new PipeError('execution timed out', { code: 500, kind: 'TIMEOUT', details: { timeoutMs: ms } });
}

/** True for the error `tick()` throws (it ends the execution even where a step's failure would not). */
export function isExecutionTimeout(err: unknown): boolean {
  return err instanceof PipeError && err.kind === 'TIMEOUT' && err.message === 'execution timed out';
}

/** Counts `work` units of evaluation; throws the timeout error once the deadline has passed. */
export function tick(work = 1): void {
  countdown -= work;
  if (countdown <= 0) checkClock();
}

/** Reads the clock now (also right after a single large piece of work). */
export function checkClock(): void {
  countdown = CHECK_EVERY;
  if (deadline !== Number.POSITIVE_INFINITY && performance.now() > deadline) throw executionTimeoutError(timeoutMs);
}

/** Sets the deadline (a `performance.now()` time) of the synchronous code about to run. */
export function enterDeadline(at: number | undefined, ms: number | undefined): void {
  saved.push(deadline, timeoutMs);
  if (at !== undefined) {
    deadline = at;
    timeoutMs = ms ?? 0;
  }
}

/** Restores the deadline that `enterDeadline` replaced. */
export function leaveDeadline(): void {
  timeoutMs = saved.pop() ?? 0;
  deadline = saved.pop() ?? Number.POSITIVE_INFINITY;
}
