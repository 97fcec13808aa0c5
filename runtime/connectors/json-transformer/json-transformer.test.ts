/**
 * JSON Transformer (reference §2.3): rename, edit (with item.), remove and remove-if at a root or a
 * dotted path that traverses arrays; unknown paths leave the message unchanged; the input is never
 * mutated; `__proto__` and friends are plain keys.
 */
import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { Json, JsonObject } from '../../types.js';
import { run, type TransformerAction } from './json-transformer.js';

const { ctx } = fakeContext();
const transform = (actions: TransformerAction[], message: Json) => run({ actions }, message, ctx);

describe('json-transformer connector', () => {
  const order = (): Json => ({
    id: 1,
    customer: { nm: 'Ana', id: 7 },
    items: [
      { sku: 'a', price: '2.5', description: null },
      { sku: 'b', price: '4', description: 'blue' },
    ],
  });

  it('renames a key at a nested path', async () => {
    const out = (await transform([{ type: 'rename', path: 'customer', key: 'nm', to: 'name' }], order())) as {
      customer: JsonObject;
    };
    expect(out.customer).toEqual({ name: 'Ana', id: 7 });
  });

  it('edits values with item.* at a path that traverses arrays', async () => {
    const out = (await transform(
      [{ type: 'edit', path: 'items', key: 'price', value: (item) => Number((item as JsonObject)['price']) }],
      order(),
    )) as { items: JsonObject[] };
    expect(out.items.map((i) => i['price'])).toEqual([2.5, 4]);
  });

  it('removes keys at the root and removes with a condition', async () => {
    const out = (await transform(
      [
        { type: 'remove', keys: ['id'] },
        {
          type: 'remove-if',
          path: 'items',
          key: 'description',
          condition: (item) => (item as JsonObject)['description'] === null,
        },
      ],
      order(),
    )) as JsonObject;
    expect(out).not.toHaveProperty('id');
    expect((out['items'] as JsonObject[])[0]).toEqual({ sku: 'a', price: '2.5' });
    expect((out['items'] as JsonObject[])[1]).toHaveProperty('description', 'blue');
  });

  it('an unknown path leaves the message as it was, and the input is never mutated', async () => {
    const input = order();
    const frozen = JSON.stringify(input);
    const out = await transform(
      [
        { type: 'rename', path: 'nothing.here', key: 'a', to: 'b' },
        { type: 'edit', path: 'customer', key: 'id', value: () => 0 },
      ],
      input,
    );
    expect(JSON.stringify(input)).toBe(frozen);
    expect((out as { customer: JsonObject }).customer['id']).toBe(0);
  });

  it('__proto__, constructor and prototype are plain keys (no prototype pollution)', async () => {
    const input = JSON.parse('{"a":{"__proto__":{"polluted":true},"x":1}}') as Json;
    const out = (await transform(
      [
        { type: 'rename', path: 'a', key: 'x', to: '__proto__' },
        { type: 'edit', path: 'a', key: 'constructor', value: () => 'data' },
        { type: 'edit', key: 'prototype', value: () => ({ polluted: true }) },
      ],
      input,
    )) as JsonObject;
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(out['a'])).toBe(Object.prototype);
    expect(Object.hasOwn(out['a'] as object, '__proto__')).toBe(true);
    expect((out['a'] as JsonObject)['constructor']).toBe('data');
    expect(Object.hasOwn(out, 'prototype')).toBe(true);
  });
});
