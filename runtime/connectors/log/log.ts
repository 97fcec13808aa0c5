/**
 * Connector `log`: writes `message` at `level` through the execution's logger (so the line carries
 * executionId and pipeline) and returns its input unchanged. Account values are masked.
 */
import { maskSecrets, secretValues } from '../../service/logging.js';
import type { ConnectorRun } from '../../types.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'warn', 'error']);
const MAX_LENGTH = 65536;

export interface LogParams {
  message: string;
  level?: LogLevel;
}

export const run: ConnectorRun<LogParams> = async (params, message, ctx) => {
  const level: LogLevel = typeof params.level === 'string' && LEVELS.has(params.level) ? params.level : 'info';
  const text = typeof params.message === 'string' ? params.message : JSON.stringify(params.message ?? null);
  ctx.log[level]({ connector: 'log' }, maskSecrets(text.slice(0, MAX_LENGTH), secretValues(ctx.accounts)));
  return message;
};
