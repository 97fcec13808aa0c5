/**
 * Run by csv-large.test.ts in a child process with a small V8 heap: parses the CSV file named by
 * argv[2] with `csv parse` (row schema, batches to a counting pipeline) and prints what it read and
 * the highest resident set size seen, as JSON. A parser that held the file (or its rows) whole
 * would run out of heap here and exit non-zero.
 */
import { dirname } from 'node:path';
import { Ajv } from 'ajv';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { CompiledValidator, ExecutionContext, Json, JsonObject } from '../../types.js';
import { run } from './csv.js';

const file = process.argv[2] ?? '';
const validator = new Ajv().compile({
  type: 'object',
  required: ['id', 'name', 'amount'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    amount: { type: 'number' },
    note: { type: 'string' },
  },
}) as unknown as CompiledValidator;
let peakRss = process.memoryUsage().rss;
let rowsSeen = 0;
const base = fakeContext({ workDir: dirname(file) }).ctx;
const execute = async (_pipeline: string, payload: Json): Promise<Json> => {
  rowsSeen += ((payload as JsonObject)['rows'] as Json[]).length;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return {};
};
const ctx = { ...base, services: { ...base.services, execute } } as ExecutionContext;
const out = (await run(
  {
    operation: 'parse',
    file,
    validator,
    types: [
      ['id', 'integer'],
      ['amount', 'number'],
    ],
    'batch-pipeline': 'load',
    'batch-size': 1000,
    'on-invalid': 'reject',
  },
  null,
  ctx,
)) as JsonObject;
peakRss = Math.max(peakRss, process.memoryUsage().rss);
process.stdout.write(
  JSON.stringify({ rowCount: out['rowCount'], rejectedCount: out['rejectedCount'], rowsSeen, peakRss }),
);
