import { describe, expect, it } from 'vitest';
import { PipeError } from '../errors.js';
import type { JsonObject } from '../types.js';
import { prepareDocuments } from './store-input.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What prepareDocuments stores: the document with its `_oId` (given, or generated and added last). */
const expectedText = (doc: JsonObject, id: string): string => {
  const stored: JsonObject = { ...doc };
  Object.defineProperty(stored, '_oId', { value: id, enumerable: true, writable: true, configurable: true });
  return JSON.stringify(stored);
};

describe('prepareDocuments', () => {
  it('adds a generated _oId last, as a copy of the document with the key defined would serialize', () => {
    const docs: JsonObject[] = [
      {},
      { n: 1 },
      { s: 'é"\n\u2028', o: { deep: [null, true, 1.5, { x: [] }] }, e: {} },
      JSON.parse('{"__proto__": {"p": 1}, "a": 1}') as JsonObject,
      Object.assign(Object.create(null) as JsonObject, { k: 'null prototype' }),
      { 1: 'numeric key', b: 2 },
    ];
    const prepared = prepareDocuments(docs, 1 << 20);
    prepared.forEach(({ id, text }, i) => {
      expect(id).toMatch(UUID);
      expect(text).toBe(expectedText(docs[i] as JsonObject, id));
      expect(JSON.parse(text)).toMatchObject({ _oId: id });
    });
    expect(new Set(prepared.map((p) => p.id)).size).toBe(docs.length);
  });

  it('keeps a given _oId where it is, and puts a generated one in the place of an undefined one', () => {
    expect(prepareDocuments([{ a: 1, _oId: 'k', b: 2 }], 1000)).toEqual([
      { id: 'k', text: '{"a":1,"_oId":"k","b":2}' },
    ]);
    expect(prepareDocuments([{ _oId: 5, a: 1 }], 1000)).toEqual([{ id: '5', text: '{"_oId":5,"a":1}' }]);
    const [undefinedId] = prepareDocuments([{ a: 1, _oId: undefined as never, b: 2 }], 1000);
    expect(undefinedId?.text).toBe(`{"a":1,"_oId":"${undefinedId?.id}","b":2}`);
  });

  it('measures the stored text, id included, against the size limit in UTF-8 bytes', () => {
    const size = (doc: JsonObject): number => Buffer.byteLength(prepareDocuments([doc], 1 << 20)[0]?.text ?? '');
    // 3 bytes a character in UTF-8, 1 code unit: the exact count decides, not the 3-per-unit bound.
    const fill = (chars: number): JsonObject => ({ v: '€'.repeat(chars) });
    const max = size(fill(100));
    expect(prepareDocuments([fill(100)], max)).toHaveLength(1);
    const over = (): unknown => prepareDocuments([fill(101)], max);
    expect(over).toThrow(PipeError);
    expect(over).toThrow(/exceeds the limit/);
    // A generated id counts too: a document within the limit without it is over with it.
    const idless = JSON.stringify({ v: 'x'.repeat(10) }).length;
    expect(() => prepareDocuments([{ v: 'x'.repeat(10) }], idless + 5)).toThrow(/exceeds the limit/);
    // Surrogate pairs: 2 code units, 4 bytes.
    const emoji = { v: '😀'.repeat(50) };
    expect(prepareDocuments([emoji], size(emoji))).toHaveLength(1);
    expect(() => prepareDocuments([emoji], size(emoji) - 1)).toThrow(/exceeds the limit/);
  });

  it('refuses two documents of one batch with the same id (as the id column holds it), not one alone', () => {
    expect(() => prepareDocuments([{ _oId: 'a' }, { _oId: 'a' }], 1000)).toThrow(/appears twice/);
    expect(() => prepareDocuments([{ _oId: 1 }, { n: 1 }, { _oId: '1' }], 1000)).toThrow(/appears twice/);
    expect(prepareDocuments([{ _oId: 'a' }], 1000)).toEqual([{ id: 'a', text: '{"_oId":"a"}' }]);
  });

  it('refuses what is not JSON, as before, with or without an id to add', () => {
    expect(() => prepareDocuments([{ n: Number.NaN }], 1000)).toThrow(/document is not JSON-serializable/);
    expect(() => prepareDocuments([{ _oId: 'k', n: Number.NaN }], 1000)).toThrow(/document is not JSON-serializable/);
    expect(() => prepareDocuments([{ s: 'nul\u0000' }], 1000)).toThrow(/cannot be stored/);
  });
});
