import { describe, expect, it } from 'vitest';
import type { Expr } from './expr-ast.js';
import { MAX_DEPTH, parseExpression } from './parser.js';

const map = { file: 'f.pipe', textStart: 100 };

function parse(text: string): Expr {
  const r = parseExpression(text, map);
  if (r.problem) throw new Error(r.problem.message);
  return r.expr;
}

function problem(text: string) {
  const r = parseExpression(text, map);
  if (!r.problem) throw new Error('expected a problem');
  return r.problem;
}

describe('braces parser', () => {
  it('gives host-file spans to every node', () => {
    const e = parse('CONCAT(message.a, "x")');
    expect(e.kind).toBe('call');
    if (e.kind !== 'call') return;
    expect(e.span).toEqual({ file: 'f.pipe', start: 100, end: 122 });
    expect(e.nameSpan).toEqual({ file: 'f.pipe', start: 100, end: 106 });
    expect(e.args[0]?.span).toEqual({ file: 'f.pipe', start: 107, end: 116 });
    expect(e.args[1]?.span).toEqual({ file: 'f.pipe', start: 118, end: 121 });
  });

  it('maps through an offset table when host escapes changed lengths', () => {
    // Host text `\"a\"` (5 chars) decoded to `"a"` (3 chars): offsets point back into the host.
    const r = parseExpression('"a" + 1', { file: 'f', textStart: 10, offsets: [10, 12, 13, 15, 16, 17, 18, 19] });
    expect(r.expr?.span).toEqual({ file: 'f', start: 10, end: 19 });
  });

  it('follows JavaScript precedence', () => {
    const e = parse('1 + 2 * 3 == 7 && !false || x ?? y');
    expect(e.kind === 'binary' && e.op).toBe('??');
    const left = e.kind === 'binary' ? e.left : e;
    expect(left.kind === 'binary' && left.op).toBe('||');
  });

  it('reads dashed names after global., account. and step. only when written without spaces', () => {
    const g = parse('global.read-timeout');
    expect(g.kind === 'member' && g.property).toBe('read-timeout');
    const a = parse('account.custom-1.header-value');
    expect(a.kind === 'member' && a.property).toBe('header-value');
    const m = parse('message.a-b');
    expect(m.kind === 'binary' && m.op).toBe('-');
    const spaced = parse('global.a - b');
    expect(spaced.kind === 'binary' && spaced.op).toBe('-');
  });

  it('parses paths, indexes, literals, arrays and objects', () => {
    const e = parse('message.items[0]["x-y"].$');
    expect(e.kind === 'member' && e.property).toBe('$');
    expect(parse('{ a: [1, "b", null, true], "c d": {} }').kind).toBe('object');
    expect(parse("'single'").kind).toBe('literal');
    const s = parse('"\\u00e9\\n\\d"');
    expect(s.kind === 'literal' && s.value).toBe('é\n\\d');
    expect(parse('1.5e3').kind === 'literal').toBe(true);
  });

  it('points at the exact column of a syntax error', () => {
    expect(problem('CONCAT(a,, b)').span).toEqual({ file: 'f.pipe', start: 109, end: 110 });
    expect(problem('1 +').span).toEqual({ file: 'f.pipe', start: 103, end: 103 });
    expect(problem('(1 + 2').reason).toBe('unclosed');
    expect(problem('"abc').reason).toBe('unterminated-string');
    expect(problem('a = 1').message).toContain('`==`');
    expect(problem('   ').reason).toBe('empty');
    expect(problem('message.a(1)').hint).toContain('only functions');
    expect(problem('12ab').reason).toBe('bad-number');
  });

  it('stops hostile nesting with a diagnostic instead of overflowing the stack', () => {
    for (const text of [
      '('.repeat(10000) + '1' + ')'.repeat(10000),
      '!'.repeat(10000) + 'x',
      Array(10000).fill('1').join('+'),
      'a' + '.b'.repeat(10000),
      'F('.repeat(10000),
    ]) {
      expect(problem(text).reason).toBe('too-deep');
    }
    expect(parseExpression('('.repeat(MAX_DEPTH - 5) + '1' + ')'.repeat(MAX_DEPTH - 5), map).expr).toBeDefined();
  });

  it('handles a 1 MB string literal', () => {
    const e = parse(`"${'a'.repeat(1024 * 1024)}"`);
    expect(e.kind === 'literal' && typeof e.value === 'string' && e.value.length).toBe(1024 * 1024);
  });

  it('parses lambdas with one or several parameters, the body extending to the right', () => {
    const call = parse('MAP(message.items, x => x.price * 2)');
    expect(call.kind).toBe('call');
    if (call.kind !== 'call') return;
    const lambda = call.args[1];
    expect(lambda?.kind).toBe('lambda');
    if (lambda?.kind !== 'lambda') return;
    expect(lambda.params).toEqual([{ name: 'x', span: { file: 'f.pipe', start: 119, end: 120 } }]);
    expect(lambda.arrowSpan).toEqual({ file: 'f.pipe', start: 121, end: 123 });
    expect(lambda.span).toEqual({ file: 'f.pipe', start: 119, end: 135 });
    expect(lambda.body.kind === 'binary' && lambda.body.op).toBe('*');
    const reduce = parse('REDUCE(xs, (acc, x) => acc + x, 0)');
    expect(reduce.kind === 'call' && reduce.args.length).toBe(3);
    const two = reduce.kind === 'call' ? reduce.args[1] : undefined;
    expect(two?.kind === 'lambda' && two.params.map((p) => p.name)).toEqual(['acc', 'x']);
    const none = parse('() => 1');
    expect(none.kind === 'lambda' && none.params).toEqual([]);
    const parenthesised = parse('(x) => x ?? 1');
    expect(parenthesised.kind === 'lambda' && parenthesised.body.kind).toBe('binary');
    const nested = parse('x => y => x');
    expect(nested.kind === 'lambda' && nested.body.kind).toBe('lambda');
  });

  it('keeps parenthesised expressions that only look like parameter lists', () => {
    expect(parse('(x)').kind).toBe('name');
    expect(parse('(a) + 1').kind).toBe('binary');
    expect(parse('(x >= 1)').kind).toBe('binary');
    expect(parse('a == b').kind).toBe('binary');
  });

  it('explains a stray or incomplete arrow', () => {
    expect(problem('1 => 2').hint).toContain('lambda');
    expect(problem('MAP(xs, x.a => 1)').hint).toContain('lambda');
    expect(problem('MAP(xs, x =>)').message).toBe('expected a value, found `)`');
    expect(problem('MAP(xs, (a, 1) => a)').reason).toBe('unexpected-token');
  });

  it('counts lambdas towards the nesting limit', () => {
    expect(problem('x => '.repeat(10000) + '1').reason).toBe('too-deep');
  });
});
