import { describe, expect, it } from 'vitest';
import { closest, editDistance, suggest, threshold } from './suggest.js';

describe('suggest', () => {
  it('measures edits, counting a swap of neighbours once', () => {
    expect(editDistance('total', 'totl')).toBe(1);
    expect(editDistance('teh', 'the')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('scales the threshold with the length of the name', () => {
    expect(threshold(2)).toBe(1);
    expect(threshold(9)).toBe(3);
  });

  it('suggests the closest candidate', () => {
    expect(suggest('totl', ['total', 'title', 'employee_name'])).toBe('total');
    expect(suggest('conectTimeout', ['connectTimeout', 'readTimeout'])).toBe('connectTimeout');
    expect(suggest('CONCT', ['CONCAT', 'CONTAINS'])).toBe('CONCAT');
  });

  it('refuses suggestions that are too far away', () => {
    expect(suggest('xyz', ['total', 'title'])).toBeUndefined();
    expect(suggest('ab', ['cd'])).toBeUndefined();
  });

  it('prefers a case-only difference and never suggests the name itself', () => {
    expect(suggest('Total', ['total', 'Totals'])).toBe('total');
    expect(suggest('total', ['total'])).toBeUndefined();
  });

  it('ranks several candidates, closest first then alphabetically', () => {
    expect(closest('cat', ['bat', 'cart', 'cast', 'dog']).map((r) => r.candidate)).toEqual(['bat', 'cart', 'cast']);
  });
});
