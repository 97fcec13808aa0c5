import { describe, expect, it } from 'vitest';
import { arrayOf, INTEGER, NULL, NUMBER, objectOf, STRING, UNKNOWN, type PipeType } from './pipe-type.js';
import { declassified, keepSecret, markSecret, secretIn } from './secret.js';
import { elementType, lookupField, union, widen, withoutNull } from './type-ops.js';

const mark = { from: 'account.crm.token' };
const token = markSecret(STRING, mark);
const found = (t: PipeType, name: string): PipeType => {
  const lookup = lookupField(t, name);
  if (lookup.kind !== 'found') throw new Error(`no field ${name}`);
  return lookup.type;
};

describe('secret marks on types', () => {
  it('finds a mark anywhere in a type, and nowhere in a type without one', () => {
    expect(secretIn(token)).toBe(mark);
    expect(secretIn(objectOf({ a: objectOf({ b: arrayOf(token) }) }))).toBe(mark);
    expect(secretIn(union(NULL, token))).toBe(mark);
    expect(secretIn(objectOf({ a: STRING, b: arrayOf(INTEGER) }))).toBeUndefined();
  });

  it('survives the merges of union: unknown absorbing, strings and numbers merging', () => {
    expect(secretIn(union(token, UNKNOWN))).toBe(mark);
    expect(secretIn(union(STRING, token))).toBe(mark);
    expect(secretIn(union(NUMBER, markSecret(INTEGER, mark)))).toBe(mark);
    expect(secretIn(withoutNull(union(token, NULL)))).toBe(mark);
    expect(secretIn(widen({ kind: 'string', enum: ['a'], secret: mark }))).toBe(mark);
    // A union that kept the marked member is not marked as a whole: its other members stay plain.
    const mixed = union(objectOf({ id: INTEGER, key: token }), NULL);
    expect(mixed.secret).toBeUndefined();
    expect(secretIn(found(mixed, 'id'))).toBeUndefined();
  });

  it('passes a mark on the whole to its parts, optional fields and elements included', () => {
    const account = markSecret(objectOf({ token: STRING }), mark);
    expect(secretIn(found(account, 'token'))).toBe(mark);
    const optional: PipeType = { kind: 'object', open: false, fields: { token: { type: token, required: false } } };
    expect(secretIn(found(optional, 'token'))).toBe(mark);
    expect(secretIn(found(markSecret({ kind: 'object', open: true, fields: {} }, mark), 'any'))).toBe(mark);
    expect(secretIn(elementType(markSecret(arrayOf(STRING), mark)) as PipeType)).toBe(mark);
    expect(secretIn(found(objectOf({ token, name: STRING }), 'name'))).toBeUndefined();
  });

  it('keepSecret marks a merge only when the merge lost the mark', () => {
    const kept = objectOf({ token });
    expect(keepSecret(kept, [kept])).toBe(kept);
    expect(keepSecret(UNKNOWN, [token]).secret).toBe(mark);
  });

  it('declassified removes every mark, deep, and keeps the shape', () => {
    const shape = markSecret(objectOf({ token, items: arrayOf(union(token, NULL)) }), mark);
    const plain = declassified(shape);
    expect(secretIn(plain)).toBeUndefined();
    expect(plain).toEqual(objectOf({ token: STRING, items: arrayOf(union(STRING, NULL)) }));
  });
});
