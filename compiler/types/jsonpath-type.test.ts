import { describe, expect, it } from 'vitest';
import { analyzeJsonPath } from './jsonpath-type.js';
import { arrayOf, objectOf, NULL, NUMBER, STRING, UNKNOWN, type PipeType } from './pipe-type.js';
import { union } from './type-ops.js';

const line = objectOf({ sku: STRING, qty: NUMBER });
const order: PipeType = objectOf({
  body: objectOf({
    total: NUMBER,
    customer: union(objectOf({ tier: STRING }), NULL),
    items: arrayOf(line),
    meta: objectOf({}, true),
    report: objectOf({ employee_name: STRING, amount: NUMBER }, true),
  }),
});

const self = { objectFilter: 'self' } as const;
const fields = (path: string): string[] =>
  analyzeJsonPath(path, order, self).findings.map((f) =>
    f.kind === 'field'
      ? `${f.field}@${path.slice(f.start, f.end)}:${f.start}`
      : f.kind === 'near-miss'
        ? `${f.field}~${f.declared}:${f.start}`
        : 'syntax',
  );

describe('analyzeJsonPath', () => {
  it('types each field of the path and the elements it selects', () => {
    expect(analyzeJsonPath('$.body.items[*]', order, self).selected).toEqual(line);
    expect(analyzeJsonPath('$.body.items[0]', order, self).selected).toEqual(line);
    expect(analyzeJsonPath('$.body.items[?(@.qty > 1)]', order, self).selected).toEqual(line);
    expect(analyzeJsonPath('$.body.items[*].sku', order, self).selected).toEqual(STRING);
    expect(analyzeJsonPath('$..sku', order, self).selected).toEqual(UNKNOWN);
    expect(fields('$.body.itemz[*]')).toEqual(['itemz@itemz:7']);
  });

  it('checks every `@` chain of a filter, nested and in each boolean part, at its offset', () => {
    expect(fields("$.body[?(@.customer.tierr == 'vip')]")).toEqual(['tierr@tierr:20']);
    expect(fields('$.body[?(@.total > 0 || @.totl < 5)]')).toEqual(['totl@totl:26']);
    expect(fields("$.body.items[?(@['skuu'] == 'a')]")).toEqual(['skuu@skuu:18']);
    expect(fields('$.body.items[?(@root.body.totl > @.qty)]')).toEqual(['totl@totl:26']);
    expect(fields('$.body.items[?(@root.body.total > @.qty)]')).toEqual([]);
  });

  it('stays quiet on open shapes, strings, method calls, @root and members-mode objects', () => {
    expect(fields("$.body[?(@.meta.x.y == 1 && @.total == '@.nope')]")).toEqual([]);
    expect(fields("$.body.items[?(@.sku.includes('a') && @.sku.length > 2)]")).toEqual([]);
    expect(fields('$.body.items[?(@parent.anything == 1 && @property > 0)]')).toEqual([]);
    expect(fields("$.body.items[?(@.sku == 'O\\'Brien @.nope' || @.qtyy)]")).toEqual(['qtyy@qtyy:47']);
    expect(analyzeJsonPath('$.body[?(@.nope == 1)]', order, { objectFilter: 'members' }).findings).toEqual([]);
  });

  it('reports what the run time parser refuses, a `=` at its own offset', () => {
    const [assign] = analyzeJsonPath("$.body[?(@.total = 5 && @.x == '=')]", order, self).findings;
    expect(assign).toMatchObject({ kind: 'syntax', assignment: true, start: 17, end: 18 });
    const [open] = analyzeJsonPath('$.body[?(@.total > 5)', order, self).findings;
    expect(open).toMatchObject({ kind: 'syntax', assignment: false, problem: 'missing `]`' });
  });

  it('finds nothing inside a string in a path, and only its length and characters in a filter', () => {
    expect(fields('$.body.items[0].sku[*]')).toEqual(['*@*:20']);
    expect(fields('$.body.items[0].sku.first')).toEqual(['first@first:20']);
    expect(fields("$.body.items[0].sku[?(@ == 'a')]")).toEqual(["?(@ == 'a')@?(@ == 'a'):20"]);
    expect(fields("$.body.items[?(@.sku.first == 'a')]")).toEqual(['first@first:21']);
    expect(fields("$.body.items[?(@.sku.length > 1 && @.sku[0] == 'a' && @.sku['1'] == 'b')]")).toEqual([]);
  });

  it('finds only elements and `length` in an array', () => {
    expect(fields('$.body.items.sku')).toEqual(['sku@sku:13']);
    expect(fields('$.body[?(@.items.sku == 1)]')).toEqual(['sku@sku:17']);
    expect(fields('$.body[?(@.items.length > 1)]')).toEqual([]);
    expect(analyzeJsonPath('$.body.items.length', order, self).selected).toMatchObject({ kind: 'number' });
  });

  it('reports a near miss of a declared name on an open shape, and no other undeclared read', () => {
    expect(fields('$.body.report.employeeName')).toEqual(['employeeName~employee_name:14']);
    expect(fields('$.body.report.employee')).toEqual([]);
    expect(fields('$.body.report[?(@.amounts > 1)]')).toEqual([]);
    expect(fields('$.body.report[?(@.amont > 1)]')).toEqual(['amont~amount:18']);
    expect(fields('$.body.report[?(@.currency == 1)]')).toEqual([]);
    expect(fields('$.body.meta.employeeName')).toEqual([]);
  });
});
