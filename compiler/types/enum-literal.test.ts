import { describe, expect, it } from 'vitest';
import { closedStrings, literalNeverEquals, literalOutsideEnum } from './enum-literal.js';
import { analyzeJsonPath } from './jsonpath-type.js';
import { arrayOf, BOOLEAN, INTEGER, NULL, NUMBER, objectOf, STRING, UNKNOWN, type PipeType } from './pipe-type.js';
import { union } from './type-ops.js';

const status: PipeType = { kind: 'string', enum: ['pending', 'shipped', 'delivered'], declared: true };

describe('closedStrings', () => {
  it('lists the strings of an enum, also when the field may be missing', () => {
    expect(closedStrings(status)).toEqual(['pending', 'shipped', 'delivered']);
    expect(closedStrings(union(status, NULL))).toEqual(['pending', 'shipped', 'delivered']);
  });

  it('is undefined when the value may be any string, unknown, or of a kind loose equality turns into text', () => {
    expect(closedStrings(STRING)).toBeUndefined();
    expect(closedStrings(union(status, STRING))).toBeUndefined();
    expect(closedStrings(UNKNOWN)).toBeUndefined();
    expect(closedStrings(union(status, NUMBER))).toBeUndefined();
    expect(closedStrings(NULL)).toBeUndefined();
    // The value of a literal written in the pipeline may be edited to any string.
    expect(closedStrings({ kind: 'string', enum: ['test'] })).toBeUndefined();
    expect(closedStrings(union(status, { kind: 'string', enum: ['other'] }))).toBeUndefined();
  });
});

describe('literalOutsideEnum', () => {
  it('reports a literal outside the values with the closest one', () => {
    expect(literalOutsideEnum(status, 'shiped')).toEqual({
      values: ['pending', 'shipped', 'delivered'],
      suggestion: 'shipped',
    });
    expect(literalOutsideEnum(status, 'Shipped')?.suggestion).toBe('shipped');
    expect(literalOutsideEnum(status, 'cancelled')).toEqual({ values: ['pending', 'shipped', 'delivered'] });
    expect(literalOutsideEnum({ kind: 'string', enum: ['a', 'b'], declared: true }, 'c')).toEqual({
      values: ['a', 'b'],
    });
    expect(literalOutsideEnum({ kind: 'string', enum: ['a', 'b'], declared: true }, 'A')?.suggestion).toBe('a');
  });

  it('accepts the values themselves and every literal against an open string', () => {
    expect(literalOutsideEnum(status, 'shipped')).toBeUndefined();
    expect(literalOutsideEnum(STRING, 'anything')).toBeUndefined();
  });
});

describe('literalNeverEquals (strict equality)', () => {
  it('finds literals of a type no member of the shape has', () => {
    expect(literalNeverEquals(INTEGER, '200')?.kind).toBe('type');
    expect(literalNeverEquals(union(BOOLEAN, NULL), 'true')?.kind).toBe('type');
    expect(literalNeverEquals(STRING, 5)?.kind).toBe('type');
    expect(literalNeverEquals(status, 'shiped')?.kind).toBe('enum');
  });

  it('stays quiet when a member may hold the literal, or the shape is not only scalars', () => {
    expect(literalNeverEquals(union(STRING, NUMBER), 5)).toBeUndefined();
    expect(literalNeverEquals(INTEGER, 1.5)).toBeUndefined();
    expect(literalNeverEquals(UNKNOWN, 'x')).toBeUndefined();
    expect(literalNeverEquals(union(INTEGER, objectOf({})), 'x')).toBeUndefined();
    expect(literalNeverEquals(arrayOf(STRING), 'x')).toBeUndefined();
    expect(literalNeverEquals(NULL, 'x')).toBeUndefined();
  });
});

describe('JSONPath filters comparing a chain with a literal', () => {
  const order = objectOf({
    body: objectOf({ status, tags: arrayOf({ kind: 'string', enum: ['vip', 'new'], declared: true }), note: STRING }),
  });
  const misses = (path: string): string[] =>
    analyzeJsonPath(path, order, { objectFilter: 'self' }).findings.map((f) =>
      f.kind === 'enum' ? `${f.chain}${f.operator}${path.slice(f.start, f.end)}` : f.kind,
    );

  it('finds the literal on either side, with any equality operator', () => {
    expect(misses("$.body[?(@.status == 'shiped')]")).toEqual(["@.status=='shiped'"]);
    expect(misses('$.body[?("shiped" !== @.status)]')).toEqual(['@.status!=="shiped"']);
    expect(misses("$.body[?(@.note == 'x' && @.status === 'lost')]")).toEqual(["@.status==='lost'"]);
    expect(misses("$.body.tags[?(@ == 'vpi')]")).toEqual(["@=='vpi'"]);
  });

  it('stays quiet for values of the enum, open strings, and comparisons that are not of the chain alone', () => {
    expect(misses("$.body[?(@.status == 'shipped')]")).toEqual([]);
    expect(misses("$.body[?(@.note == 'anything')]")).toEqual([]);
    expect(misses("$.body[?('x' + @.status == 'xshipped')]")).toEqual([]);
    expect(misses("$.body[?(@.status == 'ship' + 'ped')]")).toEqual([]);
    expect(misses("$.body[?(@.status.toUpperCase() == 'SHIPPED')]")).toEqual([]);
    expect(misses("$.body[?(@.status == 'it\\'s')]")).toEqual([]);
  });
});
