import { describe, expect, it } from 'vitest';
import { contractProblems } from './contracts.js';
import { INTEGER, NULL, STRING, UNKNOWN, type PipeType } from '../types/pipe-type.js';

const span = { file: 'f.pipe', start: 0, end: 1 };
const closed = (fields: Record<string, [PipeType, boolean]>, open = false): PipeType => ({
  kind: 'object',
  open,
  fields: Object.fromEntries(Object.entries(fields).map(([k, [type, required]]) => [k, { type, required }])),
});
const order = closed({ orderId: [STRING, true], quantity: [INTEGER, true] });
const kinds = (actual: PipeType, expected: PipeType): string[] =>
  contractProblems(undefined, actual, expected, span).map((p) => `${p.kind}:${p.path.join('.')}`);

describe('contractProblems', () => {
  it('reports a missing required field of a closed payload, an unknown field and a type that never fits', () => {
    expect(kinds(closed({ orderId: [STRING, true] }), order)).toEqual(['missing:quantity']);
    expect(kinds(closed({ orderId: [STRING, true], quantity: [INTEGER, true], qty: [INTEGER, true] }), order)).toEqual([
      'unknown:qty',
    ]);
    expect(kinds(closed({ orderId: [INTEGER, true], quantity: [INTEGER, true] }), order)).toEqual(['type:orderId']);
  });

  it('stays quiet when it cannot be sure', () => {
    // An open payload may carry the field; an optional extra field may be absent; unknown fits all.
    expect(kinds(closed({ orderId: [STRING, true] }, true), order)).toEqual([]);
    expect(kinds(closed({ orderId: [STRING, true], quantity: [INTEGER, true], note: [STRING, false] }), order)).toEqual(
      [],
    );
    expect(kinds(UNKNOWN, order)).toEqual([]);
    expect(
      kinds(closed({ orderId: [UNKNOWN, true], quantity: [{ kind: 'union', members: [INTEGER, NULL] }, true] }), order),
    ).toEqual([]);
    // An open contract takes extra fields.
    expect(
      kinds(closed({ orderId: [STRING, true], quantity: [INTEGER, true], x: [STRING, true] }), {
        ...order,
        open: true,
      } as PipeType),
    ).toEqual([]);
  });
});
