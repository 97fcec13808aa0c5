/**
 * Drives the Double Braces data tables (test/double-braces/<group>.json) through the whole
 * parse → check → emit → run path of `evaluateExpression`. A row is
 *   { expr, message?, globals?, now?, expected? | error? | diagnostic? }
 * where `error` is the expected run-time PipeError kind and `diagnostic` an expected build-time
 * code. Large or deep inputs are named by placeholders (BIG_STRING, DEEP_PARENS…) expanded here.
 * Also checks that every documented function name exists in the library and the signature table,
 * and that every function has at least three rows.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateExpression, FUNCTION_NAMES, findSignature } from '../compiler/braces/index.js';
import * as B from '../runtime/braces/index.js';
import type { Json } from '../runtime/types.js';

interface Row {
  readonly expr: string;
  readonly message?: Json;
  readonly globals?: Record<string, Json>;
  readonly now?: number;
  readonly expected?: Json;
  readonly error?: string;
  readonly diagnostic?: string;
}

const TABLES = join(dirname(fileURLToPath(import.meta.url)), 'double-braces');
const BIG = 'a'.repeat(1024 * 1024);
const DEEP = 10_000;

const PLACEHOLDER_EXPRESSIONS: Readonly<Record<string, string>> = {
  DEEP_PARENS: `${'('.repeat(DEEP)}1${')'.repeat(DEEP)}`,
  DEEP_NOT: `${'!'.repeat(DEEP)}true`,
  LONG_SUM: Array.from({ length: DEEP }, () => '1').join(' + '),
  DEEP_ARRAY: `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  DEEP_CALL: `${'ABS('.repeat(DEEP)}1${')'.repeat(DEEP)}`,
  DEEP_MEMBER: `message${'.a'.repeat(DEEP)}`,
};

/** Placeholder values: a 1 MB string, an array one element over the array functions' cap, 0…299. */
const PLACEHOLDER_VALUES: Readonly<Record<string, () => Json>> = {
  BIG_STRING: () => BIG,
  BIG_ARRAY: () => new Array<Json>(1_000_001).fill(0),
  RANGE_300: () => Array.from({ length: 300 }, (_, i) => i),
};

function expand(value: Json | undefined): Json | undefined {
  if (typeof value === 'string' && Object.prototype.hasOwnProperty.call(PLACEHOLDER_VALUES, value))
    return (PLACEHOLDER_VALUES[value] as () => Json)();
  if (Array.isArray(value)) return value.map((v) => expand(v) as Json);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, Json> = {};
    // defineProperty: a `__proto__` key in a table row is data, as JSON.parse made it.
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: expand(v) as Json, enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** Plain JSON (null-prototype objects from the library compare like ordinary ones). */
function plain(value: Json | undefined): Json | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as Json);
}

function readTable(name: string): Row[] {
  return JSON.parse(readFileSync(join(TABLES, `${name}.json`), 'utf8')) as Row[];
}

const tableNames = readdirSync(TABLES)
  .filter((f) => f.endsWith('.json') && f !== 'functions.json')
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

let workDir = '';
beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), 'braces-'));
  workDir = join(root, 'work');
  mkdirSync(join(workDir, 'sub'), { recursive: true });
  writeFileSync(join(workDir, 'a.txt'), 'hello');
  writeFileSync(join(workDir, 'sub', 'b.txt'), 'abc');
  writeFileSync(join(root, 'outside.txt'), 'secret');
  symlinkSync(join(root, 'outside.txt'), join(workDir, 'escape-link'));
});
afterAll(() => {
  if (workDir !== '') rmSync(dirname(workDir), { recursive: true, force: true });
});

function run(row: Row) {
  const source = PLACEHOLDER_EXPRESSIONS[row.expr] ?? row.expr;
  return evaluateExpression(source, {
    message: expand(row.message) ?? null,
    globals: (expand(row.globals as Json) as Record<string, Json> | undefined) ?? {},
    ...(row.now !== undefined ? { now: () => row.now as number } : { now: () => 1_000_000 }),
    workDir,
  });
}

for (const table of tableNames) {
  describe(`double braces: ${table}`, () => {
    for (const [i, row] of readTable(table).entries()) {
      const title = `${i}: ${row.expr.length > 80 ? row.expr.slice(0, 80) + '…' : row.expr}`;
      it(title, () => {
        const result = run(row);
        if (row.diagnostic !== undefined) {
          expect(result.diagnostics.map((d) => d.code)).toContain(row.diagnostic);
          return;
        }
        expect(result.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
        if (row.error !== undefined) {
          expect(result.error?.code).toBe(row.error);
          return;
        }
        expect(result.error).toBeUndefined();
        expect(plain(result.value)).toEqual(row.expected ?? null);
      });
    }
  });
}

describe('double braces: function list', () => {
  const list = JSON.parse(readFileSync(join(TABLES, 'functions.json'), 'utf8')) as {
    documented: Record<string, string[]>;
    listedOnly: string[];
    extras: string[];
  };
  const documented = Object.values(list.documented).flat();
  const all = [...documented, ...list.listedOnly, ...list.extras];
  const library = B as unknown as Record<string, unknown>;

  it('keeps the 86 documented names', () => {
    expect(documented).toHaveLength(86);
    expect(new Set(documented).size).toBe(86);
  });

  it.each(all)('%s exists in the library and has a signature', (name) => {
    expect(typeof library[name]).toBe('function');
    expect(findSignature(name)?.name).toBe(name);
    expect(findSignature(name.toLowerCase())?.name).toBe(name);
  });

  it('has no signature without a listed name', () => {
    expect([...FUNCTION_NAMES].sort()).toEqual([...all].sort());
  });

  it('documents every function in docs/double-braces.md', () => {
    const docs = readFileSync(join(TABLES, '..', '..', 'docs', 'double-braces.md'), 'utf8');
    expect(all.filter((name) => !docs.includes(`\`${name}(`))).toEqual([]);
  });

  it('tests every function at least three times', () => {
    const exprs = tableNames.flatMap((t) => readTable(t).map((r) => r.expr.toUpperCase()));
    const thin = all.filter((name) => exprs.filter((e) => new RegExp(`\\b${name}\\(`).test(e)).length < 3);
    expect(thin).toEqual([]);
  });
});
