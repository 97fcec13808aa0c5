import { describe, expect, it } from 'vitest';
import type { BracesValue, TemplateValue } from '../ast/ast.js';
import { arrayOf, BOOLEAN, INTEGER, NUMBER, objectOf, STRING, UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { compileBraces, compileTemplate, type BracesEnv } from './index.js';

const body = objectOf({ total: NUMBER, title: STRING, lines: arrayOf(objectOf({ sku: STRING, qty: INTEGER })) });
const env: BracesEnv = {
  file: 'f.pipe',
  message: objectOf({ body, tokenUsage: objectOf({ totalTokenCount: INTEGER }) }),
  globals: { 'read-timeout': STRING, retries: INTEGER },
  accounts: { crm: objectOf({ token: STRING }) },
  steps: { lookup: objectOf({ status: INTEGER, body: UNKNOWN }) },
};

function node(text: string, textStart = 10): BracesValue {
  return {
    kind: 'braces',
    text,
    textStart,
    span: { file: 'f.pipe', start: textStart - 3, end: textStart + text.length + 3 },
  };
}

function compile(text: string, extra: Partial<BracesEnv> = {}) {
  return compileBraces(node(text), { ...env, ...extra });
}

const codes = (text: string, extra: Partial<BracesEnv> = {}) => compile(text, extra).diagnostics.map((d) => d.code);

describe('braces checker', () => {
  it('infers types through paths, functions and operators', () => {
    expect(compile('message.body.total').type).toEqual(NUMBER);
    expect(compile('message.body.lines[0].qty').type.kind).toBe('union');
    expect(compile('CONCAT(message.body.title, "!")').type).toEqual(STRING);
    expect(compile('message.tokenUsage.totalTokenCount * 2').type).toEqual(INTEGER);
    expect(compile('message.body.total > 500').type).toEqual(BOOLEAN);
    expect(compile('FORMATDATE(NOW(), "timestamp", "timestamp")').type).toEqual(INTEGER);
    expect(compile('IF(true, 1, "a")').type.kind).toBe('union');
    expect(compile('step.lookup.status').type).toEqual(INTEGER);
    expect(compile('account.crm.token').type).toEqual({ ...STRING, secret: { from: 'account.crm.token' } });
  });

  it('emits readable, own-property-safe JavaScript', () => {
    expect(compile('message.body.total').js).toBe('(B.fields(B.fields(message).body).total ?? null)');
    expect(compile('CONCAT(global.read-timeout, "000")').js).toBe(
      'B.CONCAT((B.fields(ctx.globals)["read-timeout"] ?? null), "000")',
    );
    expect(compile('NOW() + 1').js).toBe('B.add(B.NOW(ctx), 1)');
    expect(compile('IF(message.body.total > 1, "a", "b")').js).toBe(
      '(B.isTrue(B.gt((B.fields(B.fields(message).body).total ?? null), 1)) ? "a" : "b")',
    );
    expect(compile('message.x ?? -1', { message: UNKNOWN }).js).toBe('((B.fields(message).x ?? null) ?? -1)');
    expect(compile('item.id', { item: UNKNOWN }).js).toBe('(B.fields(item).id ?? null)');
    expect(compile('{ "__proto__": 1 }').js).toBe('B.obj(["__proto__", 1])');
  });

  it('reads Object.prototype names through the own-property check, never with a plain load', () => {
    const env = { message: UNKNOWN };
    expect(compile('message.constructor.name', env).js).toBe(
      '(B.fields(B.field(message, "constructor")).name ?? null)',
    );
    expect(compile('message.toString', env).js).toBe('B.field(message, "toString")');
    expect(compile('message.__proto__', env).js).toBe('B.field(message, "__proto__")');
  });

  it('reports unknown fields of closed shapes with a suggestion, but not of open ones', () => {
    const r = compile('message.body.totl');
    expect(r.diagnostics[0]?.code).toBe('PIPE4006');
    expect(r.diagnostics[0]?.primary.message).toBe('Did you mean `total`?');
    expect(r.diagnostics[0]?.primary.span).toEqual({ file: 'f.pipe', start: 23, end: 27 });
    expect(r.js).toBe('null');
    expect(codes('message.anything.deep', { message: UNKNOWN })).toEqual([]);
    expect(codes('message.extra', { message: { kind: 'object', fields: {}, open: true } })).toEqual([]);
  });

  it('reports names that do not resolve', () => {
    expect(codes('global.read-timout')).toEqual(['PIPE4009']);
    expect(codes('account.crn.token')).toEqual(['PIPE4010']);
    expect(codes('account.crm.tokn')).toEqual(['PIPE4010']);
    expect(codes('step.lookp')).toEqual(['PIPE4011']);
    expect(codes('capsule.region')).toEqual(['PIPE4012']);
    expect(codes('capsule.regon', { capsule: { region: STRING } })).toEqual(['PIPE4012']);
    expect(codes('item.x')).toEqual(['PIPE4013']);
    expect(codes('retries')).toEqual(['PIPE4008']);
    expect(compile('retries').diagnostics[0]?.hint).toContain('global.retries');
  });

  it('reports arity, argument and operand problems once', () => {
    expect(codes('SUBSTRING("a")')).toEqual(['PIPE4003']);
    expect(codes('UPPERCASE(message.body.lines)')).toEqual(['PIPE4004']);
    expect(codes('SUM(message.body)')).toEqual(['PIPE4004']);
    expect(codes('message.body.title - 1')).toEqual(['PIPE4005']);
    expect(codes('message.body.total + message.body.title')).toEqual(['PIPE4005']);
    expect(codes('NOT(message.body.total)')).toEqual(['PIPE4004']);
    expect(codes('CONCATT(message.body.totl)')).toEqual(['PIPE4006', 'PIPE4002']);
    expect(codes('SUM(message.unknownthing.x, 1)', { message: UNKNOWN })).toEqual([]);
  });

  it('maps syntax problems and non-object paths to their codes', () => {
    expect(codes('CONCAT(1,, 2)')).toEqual(['PIPE4101']);
    expect(codes('"abc')).toEqual(['PIPE4102']);
    expect(codes('('.repeat(300) + '1' + ')'.repeat(300))).toEqual(['PIPE4103']);
    expect(codes('  ')).toEqual(['PIPE4104']);
    expect(codes('message.body.total.cents')).toEqual(['PIPE4007']);
    expect(codes('message.body.title[0]')).toEqual(['PIPE4007']);
  });

  it('checks literal patterns, units and zones at build time', () => {
    expect(codes('REPLACE("a", "(", "b")')).toEqual(['PIPE4014']);
    expect(codes('FORMATDATE(1, "timestamp", "yyyy-MM-ddTHH")')).toEqual(['PIPE4015']);
    expect(codes('FORMATNUMBER(1, "0.0.0")')).toEqual(['PIPE4016']);
    expect(codes('SUMDATE(1, "DAYZ", 1)')).toEqual(['PIPE4017']);
    expect(codes('FORMATDATE(1, "timestamp", "yyyy", null, "Nowhere/City")')).toEqual(['PIPE5550']);
    expect(codes('DIVIDE(1, 0)')).toEqual(['PIPE4018']);
    expect(codes('FORMATDATE(1, "timestamp", message.body.title)')).toEqual([]);
  });

  it('explains a mismatch with the expected type: why, what each path is, and a conversion hint', () => {
    const expected = { type: INTEGER, why: 'the field `readTimeout` of connector `rest-v2`' };
    const r = compile('CONCAT(global.read-timeout, "000")', { expected });
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0];
    expect(d?.code).toBe('PIPE4001');
    expect(d?.primary.message).toBe('This expression is a string');
    expect(d?.body).toEqual([
      'The field `readTimeout` of connector `rest-v2` expects:',
      '    integer',
      'But this expression produces:',
      '    string',
      'where `global.read-timeout` is a string\n  and `CONCAT(…)` always returns a string',
    ]);
    expect(d?.hint).toBe('To turn text into a number, wrap it: `{{ TOLONG(CONCAT(global.read-timeout, "000")) }}`.');
    expect(codes('message.body.total', { expected })).toEqual([]);
    expect(codes('message.body.title', { expected: { type: NUMBER, why: 'x' } })).toEqual(['PIPE4001']);
    expect(codes('message.whatever', { message: UNKNOWN, expected })).toEqual([]);
  });

  it('refuses to order a value that is an object, an array or a boolean whenever it is present', () => {
    const entry = { kind: 'union', members: [objectOf({ attempt: INTEGER }, true), { kind: 'null' }] } as PipeType;
    const steps = { entry };
    expect(codes('step.entry < 3', { steps })).toEqual(['PIPE4005']);
    expect(compile('step.entry < 3', { steps }).diagnostics[0]?.hint).toBe(
      'Compare one of its fields, e.g. `step.entry.attempt`.',
    );
    expect(codes('message.body.lines >= 1')).toEqual(['PIPE4005']);
    expect(codes('step.entry.attempt < 3', { steps })).toEqual([]);
    // A value that may be a number or an object, a missing one, or one of unknown shape: quiet.
    const mixed = { kind: 'union', members: [INTEGER, objectOf({})] } as PipeType;
    expect(codes('step.entry < 3', { steps: { entry: mixed } })).toEqual([]);
    expect(codes('null < 3')).toEqual([]);
    // The ordering functions fail on the same values (numeric text is compared as a number).
    expect(codes('GREATERTHAN(step.entry, 3)', { steps })).toEqual(['PIPE4004']);
    expect(codes('LESSTHANEQUAL(1, message.body.lines)')).toEqual(['PIPE4004']);
    expect(codes('LESSTHAN(step.entry.attempt, "3")', { steps })).toEqual([]);
    expect(codes('GREATERTHANEQUAL(step.entry, 3)', { steps: { entry: mixed } })).toEqual([]);
    expect(codes('message.x < 3', { message: UNKNOWN })).toEqual([]);
  });

  it('refuses a condition that is never a boolean when present: only `true` is true', () => {
    const referrer = { kind: 'union', members: [objectOf({ code: STRING }), { kind: 'null' }] } as PipeType;
    const email = { kind: 'union', members: [STRING, { kind: 'null' }] } as PipeType;
    const message = objectOf({ referrer, email, vip: BOOLEAN, tags: arrayOf(email) });
    expect(codes('message.vip && message.referrer', { message })).toEqual(['PIPE4005']);
    expect(compile('!message.referrer', { message }).diagnostics[0]?.hint).toBe(
      'Only `true` is true: to test that it is there write `!ISNULL(message.referrer)`.',
    );
    expect(codes('message.email || message.vip', { message })).toEqual(['PIPE4005']);
    expect(codes('IF(message.email, 1, 2)', { message })).toEqual(['PIPE4004']);
    expect(codes('AND(message.vip, message.referrer)', { message })).toEqual(['PIPE4004']);
    expect(codes('FILTER(message.tags, t => t)', { message })).toEqual(['PIPE4004']);
    expect(codes('message.vip && !ISNULL(message.referrer)', { message })).toEqual([]);
    expect(codes('FILTER(message.tags, t => t == "a")', { message })).toEqual([]);
    // Optional flags of other functions keep the plain check: a missing one is the default.
    expect(codes('SIZE(message.tags, message.email)', { message })).toEqual([]);
  });

  it('refuses SIZE of a value that is never text, an array or an object unless its flag is false', () => {
    const count = { kind: 'union', members: [INTEGER, { kind: 'null' }] } as PipeType;
    const message = objectOf({ count, body, flag: BOOLEAN });
    expect(codes('SIZE(message.count)', { message })).toEqual(['PIPE4004']);
    expect(codes('SIZE(message.body.total, true)', { message })).toEqual(['PIPE4004']);
    expect(codes('SIZE(message.count, false)', { message })).toEqual([]);
    expect(codes('SIZE(message.count, message.flag)', { message })).toEqual([]);
    expect(codes('SIZE(message.body.lines) + SIZE(message.body) + SIZE(message.body.title)', { message })).toEqual([]);
    expect(codes('SIZE(message.x)', { message: UNKNOWN })).toEqual([]);
  });

  it('refuses `==` between a call whose result type is known and a literal of another type', () => {
    expect(codes('SIZE(message.body.lines) == "0"')).toEqual(['PIPE4050']);
    expect(codes('TOSTRING(message.body.total) != 100')).toEqual(['PIPE4050']);
    expect(codes('EQUALTO(NOW(), "today")')).toEqual(['PIPE4050']);
    expect(codes('SIZE(message.body.lines) == 0')).toEqual([]);
    expect(codes('IF(message.body.total > 1, "a", 2) == 2')).toEqual([]);
    expect(codes('JSONPATH(message, "$.body.total") == "1"')).toEqual([]);
    expect(codes('TOSTRING(message.body.total) == null')).toEqual([]);
  });

  it('refuses `==` between a value that is always an object or an array and a scalar', () => {
    const note = { kind: 'union', members: [objectOf({ text: STRING }), { kind: 'null' }] } as PipeType;
    const count = { kind: 'union', members: [INTEGER, { kind: 'null' }] } as PipeType;
    const message = objectOf({ note, count, body });
    expect(codes('message.note == "x"', { message })).toEqual(['PIPE4024']);
    expect(codes('0 != message.body.lines', { message })).toEqual(['PIPE4024']);
    expect(codes('EQUALTO(message.body, true)', { message })).toEqual(['PIPE4024']);
    // Both may be missing (null == null is true): quiet. One always there: never equal.
    expect(codes('message.note == message.count', { message })).toEqual([]);
    expect(codes('message.body == message.count', { message })).toEqual(['PIPE4024']);
    expect(codes('message.note == SIZE(message.body.lines)', { message })).toEqual(['PIPE4024']);
    expect(codes('message.note == null', { message })).toEqual([]);
    expect(codes('message.note == { text: "a" }', { message })).toEqual([]);
    expect(codes('message.x == "a"', { message: UNKNOWN })).toEqual([]);
  });

  it('compiles templates to text and refuses them where a number is required', () => {
    const template: TemplateValue = {
      kind: 'template',
      multiline: false,
      span: { file: 'f.pipe', start: 0, end: 30 },
      parts: [
        { kind: 'text', value: 'total: ', span: { file: 'f.pipe', start: 1, end: 8 } },
        { kind: 'braces', text: ' message.body.total ', textStart: 10, span: { file: 'f.pipe', start: 8, end: 32 } },
      ],
    };
    const r = compileTemplate(template, env);
    expect(r.type).toEqual(STRING);
    expect(r.js).toBe('B.template("total: ", (B.fields(B.fields(message).body).total ?? null))');
    const bad = compileTemplate(template, { ...env, expected: { type: NUMBER as PipeType, why: 'the field `x`' } });
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['PIPE4001']);
  });
});
