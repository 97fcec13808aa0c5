/**
 * Pure tests of the query layer: filter parsing and its errors, the SQL translation's use of bound
 * parameters (no value or path text ever enters SQL), update application and aggregate parsing.
 */
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '../../types.js';
import { PipeError } from '../../errors.js';
import { parsePipeline, runStages } from './aggregate.js';
import { FIELD_OPERATORS, LOGICAL_OPERATORS, parseFilter } from './filter.js';
import { filterToSql, postgresParams, sortToSql, sqliteParams } from './filter-sql.js';
import { createRegexTester } from './regex.js';
import { matchesFilter, pathValues } from './match.js';
import { mergedDocument, mergeTargetQuery, parseMerge, unmatchedDocument } from './merge.js';
import { applyUpdate, parseUpdate, upsertSeed } from './update.js';

function badQuery(fn: () => unknown): PipeError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PipeError);
    expect((err as PipeError).code).toBe(400);
    expect((err as PipeError).kind).toBe('BAD_QUERY');
    return err as PipeError;
  }
  throw new Error('expected a BAD_QUERY error');
}

describe('parseFilter', () => {
  it('takes exactly the operators it lists (the build checks written queries against the lists)', () => {
    const operand: Record<string, Json> = {
      $in: [1],
      $nin: [1],
      $exists: true,
      $size: 1,
      $regex: 'a',
      $not: { $gt: 1 },
    };
    for (const op of FIELD_OPERATORS) {
      const condition: JsonObject = op === '$options' ? { $regex: 'a', $options: 'i' } : { [op]: operand[op] ?? 1 };
      expect(() => parseFilter({ a: condition }), op).not.toThrow();
    }
    for (const op of LOGICAL_OPERATORS) expect(() => parseFilter({ [op]: [{ a: 1 }] }), op).not.toThrow();
    expect(badQuery(() => parseFilter({ a: { $exist: true } })).message).toContain('unknown query operator $exist');
    expect(badQuery(() => parseFilter({ $xor: [{ a: 1 }] })).message).toContain('unknown query operator $xor');
  });

  it('builds the tree for implicit equality, operators and logic', () => {
    expect(parseFilter({ 'a.b': 1 })).toEqual({ kind: 'field', path: ['a', 'b'], condition: { op: 'eq', value: 1 } });
    expect(parseFilter({ a: { $gt: 1, $lt: 5 } })).toEqual({
      kind: 'field',
      path: ['a'],
      condition: {
        op: 'all',
        conditions: [
          { op: 'gt', value: 1 },
          { op: 'lt', value: 5 },
        ],
      },
    });
    expect(parseFilter({ a: { $nin: [1] } })).toEqual({
      kind: 'field',
      path: ['a'],
      condition: { op: 'not', condition: { op: 'in', values: [1] } },
    });
    expect(parseFilter({ $or: [{ a: 1 }, { b: 2 }] })).toMatchObject({
      kind: 'or',
      items: [{ kind: 'field' }, { kind: 'field' }],
    });
    expect(parseFilter({})).toEqual({ kind: 'and', items: [] });
    expect(parseFilter({ a: { $regex: 'x', $options: 'si' } })).toEqual({
      kind: 'field',
      path: ['a'],
      condition: { op: 'regex', pattern: 'x', flags: 'is' },
    });
  });

  it('names unknown operators and rejects malformed input', () => {
    expect(badQuery(() => parseFilter({ $where: 'x' })).message).toContain('$where');
    expect(badQuery(() => parseFilter({ a: { $function: {} } })).message).toContain('$function');
    expect(badQuery(() => parseFilter({ a: { $elemMatch: {} } })).message).toContain('$elemMatch');
    badQuery(() => parseFilter({ a: { $gt: 1, b: 2 } }));
    badQuery(() => parseFilter({ a: { $options: 'i' } }));
    badQuery(() => parseFilter({ a: { $in: 5 } }));
    badQuery(() => parseFilter({ a: { $in: Array.from({ length: 1001 }, (_, i) => i) } }));
    badQuery(() => parseFilter({ a: { $gt: { x: 1 } } }));
    badQuery(() => parseFilter({ a: { $exists: 'yes' } }));
    badQuery(() => parseFilter({ a: { $not: 5 } }));
    badQuery(() => parseFilter({ $and: [] }));
    badQuery(() => parseFilter({ $or: [1] }));
    badQuery(() => parseFilter([] as unknown as JsonObject));
    for (const path of ["a'b", 'a"b', 'a b', 'a..b', '.a', 'a.', 'a;b', 'a[0]', ''])
      badQuery(() => parseFilter({ [path]: 1 }));
  });

  it('limits depth and size', () => {
    let deep: JsonObject = { a: 1 };
    for (let i = 0; i < 40; i++) deep = { $and: [deep] };
    badQuery(() => parseFilter(deep));
    const wide: JsonObject = {};
    for (let i = 0; i < 2001; i++) wide[`f${i}`] = i;
    badQuery(() => parseFilter(wide));
  });
});

describe('filterToSql', () => {
  const hostile = "x' OR 1=1 --";
  const query: JsonObject = {
    name: hostile,
    'a.b-c.$d': { $in: [hostile, 1, true, null, { k: hostile }] },
    n: { $gt: 5, $lte: 'z' },
    r: { $regex: hostile, $options: 'ims' },
    $or: [{ e: { $exists: false } }, { f: { $ne: [hostile] } }],
  };

  it.each(['sqlite', 'postgres'] as const)('%s: every value and path is a bound parameter', (dialect) => {
    const params = dialect === 'sqlite' ? sqliteParams() : postgresParams();
    const sql = filterToSql(parseFilter(query), dialect, params);
    const order = sortToSql([[['name'], -1]], dialect, params);
    for (const text of [sql, order]) {
      expect(text).not.toContain(hostile);
      expect(text).not.toContain('b-c');
      expect(text).not.toContain('"name"');
    }
    const values = JSON.stringify(params.values);
    expect(values).toContain('OR 1=1');
  });

  it('sqlite paths quote keys and index arrays', () => {
    const params = sqliteParams();
    filterToSql(parseFilter({ 'items.0.$price': 1 }), 'sqlite', params);
    expect(Object.values(params.values)).toContain('$."items"[0]."$price"');
  });
});

describe('in-memory matcher: paths through arrays', () => {
  const regex = createRegexTester();
  const matches = (doc: JsonObject, query: JsonObject): boolean => matchesFilter(doc, parseFilter(query), regex);

  it('reaches values as MongoDB traverses paths', () => {
    const doc: JsonObject = {
      items: [{ price: 5 }, { sku: 'k' }, 3, [{ price: 9 }], { price: [7, 8] }],
      o: { '1': { v: 2 } },
    };
    expect(pathValues(doc, ['items', 'price'])).toEqual([5, undefined, [7, 8]]);
    expect(pathValues(doc, ['items', '0', 'price'])).toEqual([5]);
    expect(pathValues(doc, ['items', '9', 'price'])).toEqual([undefined]);
    expect(pathValues(doc, ['o', '1', 'v'])).toEqual([2]);
    expect(pathValues({ items: [1, 2] }, ['items', 'price'])).toEqual([undefined]);
    expect(pathValues({ items: 'x' }, ['items', 'price'])).toEqual([undefined]);
  });

  it('applies operators to every value reached, negations to the whole set', () => {
    const doc: JsonObject = { items: [{ price: 5, tags: ['a', 'b'] }, { price: 20 }] };
    expect(matches(doc, { 'items.price': { $gt: 10 } })).toBe(true);
    expect(matches(doc, { 'items.price': { $gt: 30 } })).toBe(false);
    expect(matches(doc, { 'items.price': { $ne: 5 } })).toBe(false);
    expect(matches(doc, { 'items.price': { $nin: [1, 2] } })).toBe(true);
    expect(matches(doc, { 'items.tags': { $size: 2 } })).toBe(true);
    expect(matches(doc, { 'items.tags': 'b' })).toBe(true);
    expect(matches(doc, { 'items.tags': null })).toBe(true); // the second element lacks tags
    expect(matches(doc, { 'items.tags': { $exists: false } })).toBe(false);
    expect(matches(doc, { 'items.1.price': 20 })).toBe(true);
  });

  it('rejects a bad $size', () => {
    for (const size of [-1, 1.5, '2', null]) badQuery(() => parseFilter({ a: { $size: size } as JsonObject }));
  });
});

describe('$merge planning', () => {
  it('parses the supported subset and refuses the rest', () => {
    expect(parseMerge('out')).toEqual({ into: 'out', on: [['_oId']], whenMatched: 'merge', whenNotMatched: 'insert' });
    expect(
      parseMerge({ into: 'out', on: ['a.b', 'c'], whenMatched: 'replace', whenNotMatched: 'discard' }),
    ).toMatchObject({ on: [['a', 'b'], ['c']] });
    for (const spec of [
      { into: 'out', whenMatched: [] },
      { into: 'out', let: {} },
      { into: { coll: 'x' } },
      { into: 'out', on: "a'b" },
      5,
    ] as JsonObject[]) {
      expect(() => parseMerge(spec)).toThrow(PipeError);
    }
    expect(badQuery(() => parsePipeline([{ $merge: 'out' }, { $limit: 1 }])).message).toContain('last stage');
  });

  it('decides per document: target query, merged or replaced document, insert or not', () => {
    const spec = parseMerge({ into: 'out', on: 'k' });
    expect(mergeTargetQuery(spec, { k: 1 })).toEqual({ k: 1 });
    expect(mergeTargetQuery(spec, { k: { x: 1 } })).toEqual({ k: { $eq: { x: 1 } } });
    badQuery(() => mergeTargetQuery(spec, { k: [1] }));
    badQuery(() => mergeTargetQuery(spec, {}));
    expect(mergeTargetQuery(parseMerge('out'), { a: 1 })).toBeNull();
    expect(mergedDocument(spec, { _oId: 't', k: 1, old: true }, { k: 1, v: 2 })).toEqual({
      _oId: 't',
      k: 1,
      old: true,
      v: 2,
    });
    expect(
      mergedDocument(parseMerge({ into: 'out', whenMatched: 'replace' }), { _oId: 't', old: true }, { v: 2 }),
    ).toEqual({ v: 2, _oId: 't' });
    expect(
      mergedDocument(parseMerge({ into: 'out', whenMatched: 'keepExisting' }), { _oId: 't' }, { v: 2 }),
    ).toBeNull();
    expect(() =>
      mergedDocument(parseMerge({ into: 'out', whenMatched: 'fail' }), { _oId: 't' }, { _oId: 't' }),
    ).toThrow(/whenMatched/);
    badQuery(() => mergedDocument(spec, { _oId: 't', k: 1 }, { _oId: 'other', k: 1 }));
    expect(unmatchedDocument(parseMerge({ into: 'out', whenNotMatched: 'discard' }), { v: 1 })).toBeNull();
    expect(() => unmatchedDocument(parseMerge({ into: 'out', whenNotMatched: 'fail' }), { v: 1 })).toThrow(PipeError);
  });
});

describe('updates', () => {
  it('applies $set (creating objects), $unset and $inc to a copy', () => {
    const doc: JsonObject = { _oId: '1', a: { x: 1 }, n: 1, list: [1] };
    const out = applyUpdate(
      doc,
      parseUpdate({ $set: { 'a.y.z': 2, 'list.3': 9 }, $unset: { 'a.x': '' }, $inc: { n: 2, m: 1 } }),
    );
    expect(out).toEqual({ _oId: '1', a: { y: { z: 2 } }, n: 3, m: 1, list: [1, null, null, 9] });
    expect(doc).toEqual({ _oId: '1', a: { x: 1 }, n: 1, list: [1] });
  });

  it('replaces whole documents but keeps _oId', () => {
    expect(applyUpdate({ _oId: '1', a: 1 }, parseUpdate({ b: 2 }))).toEqual({ b: 2, _oId: '1' });
    badQuery(() => applyUpdate({ _oId: '1' }, parseUpdate({ _oId: '2' })));
  });

  it('rejects unknown operators, mixes and writes through scalars', () => {
    expect(badQuery(() => parseUpdate({ $push: { a: 1 } })).message).toContain('$push');
    badQuery(() => parseUpdate({ $set: { a: 1 }, b: 2 }));
    badQuery(() => parseUpdate({ $set: { _oId: 1 } }));
    badQuery(() => parseUpdate({ $inc: { a: 'x' } }));
    badQuery(() => applyUpdate({ a: 5 }, parseUpdate({ $set: { 'a.b': 1 } })));
    badQuery(() => applyUpdate({ a: [{ b: 1 }] }, parseUpdate({ $unset: { 'a.b': '' } })));
    expect(applyUpdate({ a: [{ b: 1 }] }, parseUpdate({ $unset: { 'a.0.b': '' } }))).toEqual({ a: [{}] });
  });

  it('writes prototype keys as own data', () => {
    const out = applyUpdate(
      {},
      parseUpdate(JSON.parse('{"$set": {"__proto__.polluted": 1, "constructor.prototype.bad": 1}}') as JsonObject),
    );
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['bad']).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(
      JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"bad": 1}}}'),
    );
  });

  it('seeds upserts from equality conditions', () => {
    expect(upsertSeed(parseFilter({ a: 1, 'b.c': 'x', d: { $gt: 1 }, $and: [{ e: { $eq: true } }] }))).toEqual({
      a: 1,
      b: { c: 'x' },
      e: true,
    });
  });
});

describe('aggregate', () => {
  const regex = createRegexTester();
  const docs: JsonObject[] = [
    { _oId: '1', g: 'a', v: 3, s: 'x' },
    { _oId: '2', g: 'b', v: 1 },
    { _oId: '3', g: 'a', v: 'n/a', s: 'y' },
  ];

  it('groups by compound keys and accumulates only numbers in $sum/$avg', () => {
    const out = runStages(
      docs,
      parsePipeline([
        {
          $group: {
            _id: { g: '$g' },
            sum: { $sum: '$v' },
            avg: { $avg: '$v' },
            first: { $first: '$s' },
            last: { $last: '$v' },
            max: { $max: '$v' },
          },
        },
      ]),
      regex,
    );
    expect(out).toEqual([
      { _id: { g: 'a' }, sum: 3, avg: 3, first: 'x', last: 'n/a', max: 'n/a' },
      { _id: { g: 'b' }, sum: 1, avg: 1, first: null, last: 1, max: 1 },
    ]);
  });

  it('matches in memory after a $group', () => {
    const out = runStages(
      docs,
      parsePipeline([{ $group: { _id: '$g', n: { $sum: 1 } } }, { $match: { n: { $gte: 2 } } }]),
      regex,
    );
    expect(out).toEqual([{ _id: 'a', n: 2 }]);
  });

  it('rejects unknown stages, accumulators and expression operators', () => {
    const cases: Json[] = [
      [{ $out: 'x' }],
      [{ $group: { _id: null, x: { $stdDevPop: '$v' } } }],
      [{ $group: { _id: { $concat: ['$a'] } } }],
      [{ $group: { n: { $sum: 1 } } }],
      [{ $project: { a: 1, b: 0 } }],
      [{ $limit: -1 }],
      [{ $sort: { a: 2 } }],
      [{ $count: 'bad name' }],
      [{ $match: {}, $limit: 1 }],
      {},
    ];
    for (const pipeline of cases) badQuery(() => parsePipeline(pipeline));
  });
});
