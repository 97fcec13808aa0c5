import { describe, expect, it } from 'vitest';
import type { BracesValue, TemplateValue } from '../ast/ast.js';
import { arrayOf, INTEGER, objectOf, STRING, type PipeType } from '../types/pipe-type.js';
import { markSecret, secretIn } from '../types/secret.js';
import { compileBraces, compileTemplate, type BracesEnv } from './index.js';

/** The message holds `token`, a secret a step before put there, and `name`, which is not. */
const token = markSecret(STRING, { from: 'account.crm.token' });
const env: BracesEnv = {
  file: 'f.pipe',
  message: objectOf({ token, name: STRING, items: arrayOf(objectOf({ id: INTEGER, key: token })) }),
  globals: { region: STRING },
  accounts: { crm: objectOf({ token: STRING, 'base-url': STRING }), keys: { kind: 'unknown' } },
  steps: {},
};

function node(text: string, textStart = 10): BracesValue {
  return {
    kind: 'braces',
    text,
    textStart,
    span: { file: 'f.pipe', start: textStart - 3, end: textStart + text.length + 3 },
  };
}

const typeOf = (text: string): PipeType => {
  const compiled = compileBraces(node(text), env);
  expect(compiled.diagnostics).toEqual([]);
  return compiled.type;
};
const from = (text: string): string | undefined => secretIn(typeOf(text))?.from;

describe('secrets in Double Braces', () => {
  it('marks every value read from an account, whole or in part', () => {
    expect(from('account.crm.token')).toBe('account.crm.token');
    expect(from('account.crm')).toBe('account.crm');
    expect(from('account')).toBe('account.crm');
    expect(from('account.keys.anything')).toBe('account.keys');
  });

  it('passes the mark on through functions, operators, lambdas and literals', () => {
    expect(from('CONCAT("Bearer ", account.crm.token)')).toBe('account.crm.token');
    expect(from('BASEENCODE(account.crm.token)')).toBe('account.crm.token');
    expect(from('SIZE(account.crm.token) > 10')).toBe('account.crm.token');
    expect(from('"x" + account.crm.token')).toBe('account.crm.token');
    expect(from('!ISNULL(account.crm.token)')).toBe('account.crm.token');
    expect(from('message.name ?? account.crm.token')).toBe('account.crm.token');
    expect(from('{ auth: account.crm.token }')).toBe('account.crm.token');
    expect(from('[message.name, account.crm.token]')).toBe('account.crm.token');
    expect(from('MAP(message.items, x => account.crm.token)')).toBe('account.crm.token');
    expect(from('IF(true, account.crm.token, "none")')).toBe('account.crm.token');
  });

  it('follows a secret the message carries, and only into the parts that hold it', () => {
    expect(from('message')).toBe('account.crm.token');
    expect(from('message.token')).toBe('account.crm.token');
    expect(from('message.items[0].key')).toBe('account.crm.token');
    expect(from('MAP(message.items, x => x.key)')).toBe('account.crm.token');
    expect(from('message.name')).toBeUndefined();
    expect(from('message.items[0].id')).toBeUndefined();
    expect(from('MAP(message.items, x => x.id)')).toBeUndefined();
    expect(from('FIRSTELEMENT(message.items).id')).toBeUndefined();
    expect(from('FIRSTELEMENT(message.items).key')).toBe('account.crm.token');
    expect(from('FILTER(message.items, x => x.id > 1)')).toBe('account.crm.token');
    expect(from('SIZE(FILTER(message.items, x => x.id > 1))')).toBe('account.crm.token');
    expect(from('IF(message.name == "a", message.name, "b")')).toBeUndefined();
    expect(from('IF(account.crm.token == "a", "yes", "no")')).toBe('account.crm.token');
    expect(from('GETELEMENTAT(message.items, SIZE(account.crm.token))')).toBe('account.crm.token');
    expect(from('global.region')).toBeUndefined();
  });

  it('DECLASSIFY(…) clears the mark, deep, and nothing else', () => {
    expect(from('DECLASSIFY(account.crm.token)')).toBeUndefined();
    expect(from('DECLASSIFY(message)')).toBeUndefined();
    expect(from('CONCAT("id-", DECLASSIFY(account.crm.token))')).toBeUndefined();
    expect(from('CONCAT(DECLASSIFY(account.crm.token), account.crm.base-url)')).toBe('account.crm.base-url');
    expect(typeOf('DECLASSIFY(message)')).toEqual(
      objectOf({ token: STRING, name: STRING, items: arrayOf(objectOf({ id: INTEGER, key: STRING })) }),
    );
  });

  it('makes a template that holds a secret a secret string', () => {
    const template = (text: string): TemplateValue => ({
      kind: 'template',
      multiline: false,
      span: { file: 'f.pipe', start: 0, end: text.length + 14 },
      parts: [{ kind: 'text', value: 'Bearer ', span: { file: 'f.pipe', start: 1, end: 8 } }, node(text, 11)],
    });
    expect(secretIn(compileTemplate(template('account.crm.token'), env).type)?.from).toBe('account.crm.token');
    expect(secretIn(compileTemplate(template('message.name'), env).type)).toBeUndefined();
  });
});
