/**
 * Build-time behaviour of lambdas in array functions (MAP, FILTER, REDUCE, …): parameter typing
 * from the array's element type, result types, the lambda diagnostics (PIPE4019–PIPE4022) with
 * their spans, and the emitted arrow functions. Run-time behaviour is in test/double-braces/arrays.json.
 */
import { describe, expect, it } from 'vitest';
import type { BracesValue } from '../ast/ast.js';
import { arrayOf, BOOLEAN, INTEGER, NULL, NUMBER, objectOf, STRING, UNKNOWN } from '../types/pipe-type.js';
import { union } from '../types/type-ops.js';
import { compileBraces, type BracesEnv } from './index.js';

const line = objectOf({ sku: STRING, qty: INTEGER, price: NUMBER });
const body = objectOf({ lines: arrayOf(line), tags: arrayOf(STRING), total: NUMBER });
const env: BracesEnv = {
  file: 'f.pipe',
  message: objectOf({ body }),
  globals: { rate: NUMBER },
  accounts: {},
  steps: {},
};

const TEXT_START = 10;

function compile(text: string, extra: Partial<BracesEnv> = {}) {
  const node: BracesValue = {
    kind: 'braces',
    text,
    textStart: TEXT_START,
    span: { file: 'f.pipe', start: TEXT_START - 3, end: TEXT_START + text.length + 3 },
  };
  return compileBraces(node, { ...env, ...extra });
}

const codes = (text: string, extra: Partial<BracesEnv> = {}) => compile(text, extra).diagnostics.map((d) => d.code);

/** Host span of `part` (its first occurrence) inside the expression `text`. */
function spanOf(text: string, part: string, from = 0) {
  const start = TEXT_START + text.indexOf(part, from);
  return { file: 'f.pipe', start, end: start + part.length };
}

describe('lambda types', () => {
  it('types parameters from the element type of the array', () => {
    expect(compile('MAP(message.body.lines, l => l.qty)').type).toEqual(arrayOf(INTEGER));
    expect(compile('MAP(message.body.lines, l => l.qty * l.price)').type).toEqual(arrayOf(NUMBER));
    expect(compile('MAP(message.body.tags, t => UPPERCASE(t))').type).toEqual(arrayOf(STRING));
    expect(compile('MAP(message.body.lines, l => { s: l.sku })').type).toEqual(arrayOf(objectOf({ s: STRING })));
    expect(compile('SUM(MAP(message.body.lines, l => l.qty * l.price))').type).toEqual(NUMBER);
  });

  it('widens literal results and keeps unknown arrays unknown', () => {
    expect(compile('MAP(message.body.lines, l => "x")').type).toEqual(arrayOf(STRING));
    expect(compile('MAP(message.items, x => x.a)', { message: UNKNOWN }).type).toEqual(arrayOf(UNKNOWN));
  });

  it('keeps the array type through FILTER and SORTBY, and adds null for FIND', () => {
    expect(compile('FILTER(message.body.lines, l => l.qty > 1)').type).toEqual(arrayOf(line));
    expect(compile('SORTBY(message.body.lines, l => l.price, true)').type).toEqual(arrayOf(line));
    expect(compile('FIND(message.body.lines, l => l.sku == "A")').type).toEqual(union(line, NULL));
    expect(compile('SOME(message.body.lines, l => l.qty > 1)').type).toEqual(BOOLEAN);
    expect(compile('EVERY(message.body.tags, t => t != "")').type).toEqual(BOOLEAN);
    expect(compile('GROUPBY(message.body.lines, l => l.sku)').type.kind).toBe('object');
  });

  it('types the REDUCE accumulator from the initial value and the body', () => {
    expect(compile('REDUCE(message.body.lines, (acc, l) => acc + l.qty, 0)').type).toEqual(INTEGER);
    expect(compile('REDUCE(message.body.lines, (acc, l) => acc + l.price, 0)').type).toEqual(NUMBER);
    expect(compile('REDUCE(message.body.tags, (acc, t) => acc + t, "")').type).toEqual(STRING);
    // The accumulator is a number on every pass, so `acc + l.price` is never reported.
    expect(codes('REDUCE(message.body.lines, (acc, l) => acc + l.price, 0)')).toEqual([]);
  });

  it('gives SUM, AVG, MIN, MAX and COUNT over one array the scalar result', () => {
    expect(compile('AVG(MAP(message.body.lines, l => l.price))').type).toEqual(NUMBER);
    expect(compile('COUNT(message.body.lines)').type).toEqual(INTEGER);
    expect(compile('MAX(message.body.lines[0].qty, 2)').type).toEqual(NUMBER);
    expect(codes('SUM(message.body.lines)')).toEqual(['PIPE4004']);
    expect(codes('MIN(message.body.tags)')).toEqual([]);
    expect(codes('SUM(message.body.lines, 1)')).toEqual(['PIPE4004']);
    expect(codes('COUNT(message.body.lines, message.body.tags)')).toEqual([]);
  });
});

describe('lambda diagnostics', () => {
  it('checks paths on the element against its closed shape, with did-you-mean', () => {
    const text = 'MAP(message.body.lines, l => l.qtty)';
    const r = compile(text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4006']);
    expect(r.diagnostics[0]?.message).toBe('no field `qtty` on `l`');
    expect(r.diagnostics[0]?.primary.message).toBe('Did you mean `qty`?');
    expect(r.diagnostics[0]?.primary.span).toEqual(spanOf(text, 'qtty'));
    expect(codes('MAP(message.body.tags, t => t.name)')).toEqual(['PIPE4007']);
  });

  it('reports a non-array argument and a lambda body of the wrong type', () => {
    expect(codes('MAP(message.body.total, x => x)')).toEqual(['PIPE4004']);
    expect(codes('FILTER(message.body.lines, l => l.qty)')).toEqual(['PIPE4004']);
    const text = 'SORTBY(message.body.lines, l => { a: l.sku })';
    const r = compile(text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4004']);
    expect(r.diagnostics[0]?.message).toBe(
      'the lambda of SORTBY must give a number or string or null, but its body is an object { a }',
    );
    expect(r.diagnostics[0]?.primary.span).toEqual(spanOf(text, '{ a: l.sku }'));
  });

  it('refuses lambdas outside the lambda position of an array function', () => {
    const text = 'SUM(x => x)';
    const r = compile(text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4019']);
    expect(r.diagnostics[0]?.message).toBe('argument 1 of SUM cannot be a lambda');
    expect(r.diagnostics[0]?.primary.span).toEqual(spanOf(text, 'x => x'));
    expect(codes('x => 1')).toEqual(['PIPE4019']);
    expect(compile('x => 1').diagnostics[0]?.body).toEqual([
      'Functions that take a lambda: MAP, FILTER, REDUCE, SOME, EVERY, FIND, SORTBY, GROUPBY.',
    ]);
    expect(codes('{ f: x => x }')).toEqual(['PIPE4019']);
    expect(codes('MAP(x => x, message.body.lines)')).toEqual(['PIPE4019', 'PIPE4020']);
    // The body of a misplaced lambda is still checked.
    expect(codes('SUM(x => y)')).toEqual(['PIPE4019', 'PIPE4008']);
  });

  it('asks for a lambda where the signature has one', () => {
    const r = compile('MAP(message.body.lines, message.body.total)');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4020']);
    expect(r.diagnostics[0]?.message).toBe(
      'argument 2 of MAP must be a lambda `x => value`, but `message.body.total` is not one',
    );
  });

  it('checks the number of lambda parameters', () => {
    const text = 'REDUCE(message.body.lines, l => l.qty, 0)';
    const r = compile(text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4021']);
    expect(r.diagnostics[0]?.message).toBe('the lambda of REDUCE takes 2 parameters, but this one declares 1');
    expect(r.diagnostics[0]?.hint).toBe('Write it as `(acc, x) => value`.');
    expect(r.diagnostics[0]?.primary.span).toEqual(spanOf(text, 'l', text.indexOf(',')));
    expect(codes('MAP(message.body.lines, (a, b) => a)')).toEqual(['PIPE4021']);
    expect(codes('MAP(message.body.lines, () => 1)')).toEqual(['PIPE4021']);
  });

  it('refuses parameter names that hide scopes, literals or other parameters', () => {
    const text = 'MAP(message.body.lines, message => message.qty)';
    const r = compile(text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4022']);
    expect(r.diagnostics[0]?.message).toBe('the lambda parameter `message` would hide the scope `message`');
    expect(r.diagnostics[0]?.primary.span).toEqual(spanOf(text, 'message', 5));
    for (const name of ['global', 'account', 'metadata', 'step', 'item', 'capsule', 'null', 'true']) {
      expect(codes(`MAP(message.body.lines, ${name} => 1)`)).toEqual(['PIPE4022']);
    }
    expect(codes('REDUCE(message.body.lines, (a, a) => a, 0)')).toEqual(['PIPE4022']);
    expect(codes('MAP(message.body.lines, l => MAP(message.body.tags, l => l))')).toEqual(['PIPE4022']);
    expect(compile('MAP(message.body.lines, l => MAP(message.body.tags, l => l))').diagnostics[0]?.message).toBe(
      'the lambda parameter `l` is already a parameter of an enclosing lambda',
    );
  });

  it('scopes parameters to their lambda body and suggests them for typos', () => {
    expect(codes('CONCAT(MAP(message.body.lines, l => l.sku), l)')).toEqual(['PIPE4008']);
    const r = compile('MAP(message.body.lines, line => lime.qty)');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PIPE4008']);
    expect(r.diagnostics[0]?.primary.message).toBe('Did you mean `line`?');
    expect(codes('MAP(message.body.lines, l => SUM(MAP(message.body.tags, t => l.qty)))')).toEqual([]);
  });

  // No clock: were the accumulator pass to multiply per level, 60 levels would not end within the
  // test's timeout.
  it('checks deeply nested REDUCEs (the accumulator pass does not multiply)', () => {
    const depth = 60;
    const opening = Array.from(
      { length: depth },
      (_, i) => `REDUCE(message.body.lines, (a${i}, l${i}) => a${i} + `,
    ).join('');
    const text = `${opening}1${', 0)'.repeat(depth)}`;
    expect(codes(text)).toEqual([]);
  });

  it('reports an unknown function once, even with a lambda argument', () => {
    expect(codes('MAPP(message.body.lines, l => l.qty)')).toEqual(['PIPE4002']);
  });
});

describe('lambda emission', () => {
  it('emits plain arrow functions with $-prefixed parameters', () => {
    expect(compile('MAP(message.body.lines, l => l.qty * l.price)').js).toBe(
      'B.MAP((B.fields(B.fields(message).body).lines ?? null), ($l) => B.arith("*", (B.fields($l).qty ?? null), (B.fields($l).price ?? null)))',
    );
    // the usual total in one pass (runtime/braces/arrays.test.ts shows it equals SUM of MAP)
    expect(compile('SUM(MAP(message.body.lines, l => l.qty * l.price))').js).toBe(
      'B.SUM_MAP((B.fields(B.fields(message).body).lines ?? null), ($l) => B.arith("*", (B.fields($l).qty ?? null), (B.fields($l).price ?? null)))',
    );
    expect(compile('AVG(MAP(message.body.lines, l => l.qty))').js).toMatch(/^B\.AVG\(B\.MAP\(/);
    expect(compile('REDUCE(message.body.lines, (acc, l) => acc + l.qty, 0)').js).toBe(
      'B.REDUCE((B.fields(B.fields(message).body).lines ?? null), ($acc, $l) => B.add($acc, (B.fields($l).qty ?? null)), 0)',
    );
    expect(compile('MAP(message.body.lines, l => { sku: l.sku })').js).toBe(
      'B.MAP((B.fields(B.fields(message).body).lines ?? null), ($l) => ({ "sku": (B.fields($l).sku ?? null) }))',
    );
    expect(compile('FILTER(message.body.lines, l => l.price > global.rate)').js).toBe(
      'B.FILTER((B.fields(B.fields(message).body).lines ?? null), ($l) => B.gt((B.fields($l).price ?? null), (B.fields(ctx.globals).rate ?? null)))',
    );
  });

  it('keeps names that are JavaScript words or generated identifiers harmless', () => {
    expect(compile('MAP(message.body.tags, constructor => constructor)').js).toBe(
      'B.MAP((B.fields(B.fields(message).body).tags ?? null), ($constructor) => $constructor)',
    );
    expect(compile('MAP(message.body.tags, ctx => ctx)').js).toBe(
      'B.MAP((B.fields(B.fields(message).body).tags ?? null), ($ctx) => $ctx)',
    );
    expect(compile('MAP(message.body.tags, B => IF(true, B, message))').js).toBe(
      'B.MAP((B.fields(B.fields(message).body).tags ?? null), ($B) => (B.isTrue(true) ? $B : message))',
    );
  });

  it('emits nothing when a lambda is wrong', () => {
    expect(compile('MAP(message.body.lines, l => l.qtty)').js).toBe('null');
  });
});
