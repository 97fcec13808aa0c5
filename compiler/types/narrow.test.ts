import { describe, expect, it } from 'vitest';
import { INTEGER, NUMBER, STRING, UNKNOWN, type PipeType } from './pipe-type.js';
import { narrowBySchema } from './type-ops.js';

const object = (fields: Record<string, [PipeType, boolean]>, open: boolean): PipeType => ({
  kind: 'object',
  open,
  fields: Object.fromEntries(Object.entries(fields).map(([k, [type, required]]) => [k, { type, required }])),
});

describe('narrowBySchema (what validate passes on)', () => {
  it('keeps a closed message closed: a schema field the message cannot hold is dropped', () => {
    const envelope = object({ body: [UNKNOWN, true], headers: [UNKNOWN, true] }, false);
    const schema = object({ body: [object({ total: [NUMBER, true] }, true), true], extra: [STRING, false] }, true);
    expect(narrowBySchema(envelope, schema)).toEqual(
      object({ body: [object({ total: [NUMBER, true] }, true), true], headers: [UNKNOWN, true] }, false),
    );
  });

  it('closes an open message with a closed schema, and a field is required when either side requires it', () => {
    const open = object({ id: [STRING, false], note: [STRING, true] }, true);
    const schema = object({ id: [STRING, true], qty: [INTEGER, false] }, false);
    expect(narrowBySchema(open, schema)).toEqual(object({ id: [STRING, true], qty: [INTEGER, false] }, false));
  });

  it('takes the schema for an unknown message, and the message for an unknown schema', () => {
    const schema = object({ id: [STRING, true] }, false);
    expect(narrowBySchema(UNKNOWN, schema)).toEqual(schema);
    expect(narrowBySchema(schema, UNKNOWN)).toEqual(schema);
  });
});
