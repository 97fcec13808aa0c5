import { describe, expect, it } from 'vitest';
import { inferJslt, inferJsltShape } from './infer-shape.js';
import { arrayOf, BOOLEAN, INTEGER, NULL, STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';

function obj(fields: Record<string, PipeType | [PipeType, 'optional']>, open = false): PipeType {
  const out: Record<string, FieldType> = {};
  for (const [k, v] of Object.entries(fields))
    out[k] = Array.isArray(v) ? { type: v[0], required: false } : { type: v, required: true };
  return { kind: 'object', fields: out, open };
}

const INPUT = obj({
  id: STRING,
  count: INTEGER,
  note: [STRING, 'optional'],
  items: arrayOf(obj({ name: STRING, price: INTEGER })),
});

describe('JSLT output shapes', () => {
  it('knows the fields of an object constructor and types reads of the input', () => {
    const query = '{ "id": .id, "n": .count + 1, "note": .note, "names": [for (.items) .name], "ok": .count > 2 }';
    expect(inferJsltShape(query, INPUT)).toEqual(
      obj({
        id: STRING,
        n: INTEGER,
        note: [STRING, 'optional'],
        names: [arrayOf(STRING), 'optional'],
        ok: BOOLEAN,
      }),
    );
  });

  it('leaves out keys whose value may be null, and types string functions', () => {
    expect(inferJsltShape('{ "lower": lowercase(.id), "size": size(.items), "x": .missing }', INPUT)).toEqual(
      obj({ lower: [STRING, 'optional'], size: [INTEGER, 'optional'], x: [NULL, 'optional'] }),
    );
  });

  it('follows let, if/else and the pipe operator', () => {
    const query = 'let first = .items[0] if ($first) { "name": $first.name } else { "name": "none" }';
    expect(inferJsltShape(query, INPUT)).toEqual(union(obj({ name: [STRING, 'optional'] }), obj({ name: STRING })));
    expect(inferJsltShape('.items | { "n": size(.) }', INPUT)).toEqual(obj({ n: [INTEGER, 'optional'] }));
  });

  it('is open where keys are computed, copied by a matcher or merged with an unknown object', () => {
    expect(inferJsltShape('{ .id : 1 }', INPUT)).toEqual(obj({}, true));
    expect(inferJsltShape('{ "a": 1, * : . }', INPUT)).toEqual(obj({ a: INTEGER }, true));
    expect(inferJsltShape('{ "a": 1 } + .other', obj({ other: UNKNOWN }))).toEqual(UNKNOWN);
    expect(inferJsltShape('{ "a": 1 } + { "b": "x" }', INPUT)).toEqual(obj({ a: INTEGER, b: STRING }));
  });

  it('is unknown for user functions and for input it cannot see', () => {
    expect(inferJsltShape('def f(x) $x f(.id)', INPUT)).toEqual(UNKNOWN);
    expect(inferJsltShape('{ "id": .id }', UNKNOWN)).toEqual(obj({ id: [UNKNOWN, 'optional'] }));
    expect(inferJsltShape('.id', union(INPUT, NULL))).toEqual(union(STRING, NULL));
  });

  it('notes key reads that always give null, at the key, on closed shapes only', () => {
    const query = '{ "n": size(.item), "names": [for (.items) .nme], "ok": .note }';
    const reads = inferJslt(query, INPUT).absentReads;
    expect(reads.map((r) => [query.slice(r.start, r.end), r.fields])).toEqual([
      ['item', ['count', 'id', 'items', 'note']],
      ['nme', ['name', 'price']],
    ]);
    expect(inferJslt(query, obj({ items: arrayOf(obj({}, true)) }, true)).absentReads).toEqual([]);
    expect(inferJslt(query, UNKNOWN).absentReads).toEqual([]);
  });
});
