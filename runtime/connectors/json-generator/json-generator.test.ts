import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../service/test-support/fake-context.js';
import { run } from './json-generator.js';

describe('json-generator connector', () => {
  it('replaces the message with the json parameter', async () => {
    const { ctx } = fakeContext();
    expect(run({ json: { decision: 'APPROVED', total: 12 } }, { phoneNumber: '1' }, ctx)).toEqual({
      decision: 'APPROVED',
      total: 12,
    });
  });

  it('passes scalars and arrays through and treats a missing json as null', async () => {
    const { ctx } = fakeContext();
    expect(run({ json: [1, 'a'] }, null, ctx)).toEqual([1, 'a']);
    expect(run({ json: 'text' }, null, ctx)).toBe('text');
    expect(run({} as { json: null }, { x: 1 }, ctx)).toBeNull();
  });
});
