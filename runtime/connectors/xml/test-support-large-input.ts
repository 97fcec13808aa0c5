/**
 * Run by xml-large.test.ts in a child process with a small V8 heap: reads the XML file named by
 * argv[2] with `xml parse` record by record (`catalog/item`, a record schema, batches to a counting
 * pipeline) and prints what it read and the highest resident set size seen, as JSON. Holding the
 * document whole would run out of heap here and exit non-zero.
 */
import { dirname } from 'node:path';
import { Ajv } from 'ajv';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { CompiledValidator, ExecutionContext, Json, JsonObject } from '../../types.js';
import { run } from './xml.js';

const file = process.argv[2] ?? '';
const schema = {
  type: 'object',
  required: ['@id', 'name', 'price'],
  properties: {
    '@id': { type: 'integer' },
    name: { type: 'string' },
    price: { type: 'number' },
    note: { type: 'string' },
  },
};
const validator = new Ajv().compile(schema) as unknown as CompiledValidator;
let peakRss = process.memoryUsage().rss;
let recordsSeen = 0;
const base = fakeContext({ workDir: dirname(file) }).ctx;
const execute = async (_pipeline: string, payload: Json): Promise<Json> => {
  recordsSeen += ((payload as JsonObject)['records'] as Json[]).length;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return {};
};
const ctx = { ...base, services: { ...base.services, execute } } as ExecutionContext;
const out = (await run(
  {
    operation: 'parse',
    file,
    record: 'catalog/item',
    validator,
    shape: schema as unknown as Json,
    'batch-pipeline': 'load',
    'batch-size': 1000,
    'on-invalid': 'reject',
  },
  null,
  ctx,
)) as JsonObject;
peakRss = Math.max(peakRss, process.memoryUsage().rss);
process.stdout.write(
  JSON.stringify({ recordCount: out['recordCount'], rejectedCount: out['rejectedCount'], recordsSeen, peakRss }),
);
