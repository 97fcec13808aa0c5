/**
 * The SQL made through the shape cache is the SQL made directly: same text, same bound values in
 * the same order, for filters that share a shape and for those that only look alike.
 */
import { describe, expect, it } from 'vitest';
import { parseFilter } from './filter.js';
import { postgresParams, querySql, sqliteEqualityArms, sqliteParams, type ProbeContext } from './filter-sql.js';
import { generateByShape, shapeCache } from './shape-cache.js';

const context: ProbeContext = { indexed: new Map([['g', 'pipec_ix_0123456789abcdef']]), store: 's1' };

const queries: unknown[] = [
  { g: 1 },
  { g: 2 },
  { g: 2.5 },
  { g: 'x' },
  { g: true },
  { g: null },
  { g: [1, 2] },
  { g: { $in: [1, 2, 3] } },
  { g: { $in: [1, 1, 3] } },
  { g: { $in: [4, 4, 4] } },
  { g: { $in: ['a', 1, 'a'] } },
  { g: 3, n: { $gt: 1, $lte: 9 } },
  { g: 3, n: { $gt: 'a' } },
  { _oId: 'abc' },
  { _oId: { $in: ['a', 7] } },
  { 'a.b.0': 5, $or: [{ x: 'y' }, { x: { $ne: 'z' } }] },
  { 'a.b.0': 6, $or: [{ x: 'q' }, { x: { $ne: 'r' } }] },
  { s: { $regex: '^a', $options: 'i' }, n: 4 },
  { s: { $size: 2 }, n: { $nin: [1, 2] } },
  // Operands that look like what the SQL binds besides them.
  { g: '$."g"', h: '{g}' },
  { g: 4_503_599_628_370_513 },
  // No string or number operand at all.
  {},
  { g: true, h: null },
];

describe('SQL by query shape', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: the same text and values as made directly, cold and warm`, () => {
      const cache = shapeCache();
      const make = (filter: ReturnType<typeof parseFilter>, params: ReturnType<typeof sqliteParams>) =>
        dialect === 'sqlite'
          ? { arms: sqliteEqualityArms(filter, params, context), rest: querySql(filter, 'sqlite', params, context) }
          : querySql(filter, 'postgres', params);
      for (let round = 0; round < 3; round++) {
        for (const query of queries) {
          const filter = parseFilter(query);
          const direct = dialect === 'sqlite' ? sqliteParams(2) : postgresParams(2);
          const expected = make(filter, direct as ReturnType<typeof sqliteParams>);
          const cached = dialect === 'sqlite' ? sqliteParams(2) : postgresParams(2);
          const got = generateByShape(cache, filter, cached, (f, p) => make(f, p as ReturnType<typeof sqliteParams>));
          expect(got, JSON.stringify(query)).toEqual(expected);
          expect(cached.values, JSON.stringify(query)).toEqual(direct.values);
        }
      }
      // Shapes were kept (not every one made afresh each time).
      expect([...cache.values()].filter((t) => t !== null).length).toBeGreaterThan(10);
    });
  }
});
