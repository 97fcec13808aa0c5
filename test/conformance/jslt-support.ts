/**
 * Reads the schibsted/jslt conformance fixtures and runs them against our JSLT compiler, the way
 * the reference harnesses (QueryTest, QueryErrorTest, JSON-parse tests) do; see the fixtures'
 * README.md. Input: the fixture folder. Output: one result per test (pass/fail + reason).
 * Comparison: deep equality, object key order ignored, array order significant; numbers compare
 * by value (`strict` additionally tells integers from decimals, as Jackson does).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import YAML from 'yaml';
import { jsltToFunction } from '../../compiler/jslt/index.js';
import { JsltDecimal, type JsltValue, parseJsonText } from '../../runtime/jslt/index.js';

export type CaseKind = 'query' | 'error' | 'json-parse' | 'json-parse-error';

export interface JsltCase {
  readonly file: string;
  readonly index: number;
  readonly kind: CaseKind;
  readonly query: string;
  readonly input: string;
  readonly output?: string;
  readonly error?: string;
  readonly variables?: Record<string, unknown>;
}

export interface CaseResult {
  readonly testCase: JsltCase;
  readonly pass: boolean;
  /** Passes only when integers and decimals are also told apart. */
  readonly strictPass: boolean;
  readonly reason?: string;
}

/** The fixture folder, or undefined when it is not present on this machine. */
export function fixtureDir(): string | undefined {
  const base = process.env.PIPEC_CONFORMANCE_DIR ?? resolve(import.meta.dirname, '../../../shared/conformance');
  const dir = join(base, 'jslt');
  return existsSync(dir) ? dir : undefined;
}

/** Jackson's `asText()` of a fixture field: strings verbatim, scalars as text, mappings as "". */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function casesOf(file: string, data: { tests?: unknown[] }): JsltCase[] {
  const tests = Array.isArray(data.tests) ? data.tests : [];
  if (file.startsWith('json-parse')) {
    const kind: CaseKind = file.startsWith('json-parse-error') ? 'json-parse-error' : 'json-parse';
    return tests.map((query, index) => ({ file, index, kind, query: String(query), input: 'null' }));
  }
  return tests.map((raw, index) => {
    const test = raw as Record<string, unknown>;
    const base = { file, index, query: asText(test.query), input: asText(test.input) };
    const variables = test.variables as Record<string, unknown> | undefined;
    if (test.error !== undefined) return { ...base, kind: 'error' as const, error: asText(test.error) };
    return { ...base, kind: 'query' as const, output: asText(test.output), ...(variables ? { variables } : {}) };
  });
}

export function loadCases(dir: string): JsltCase[] {
  const files = readdirSync(dir)
    .filter((name) => /\.(json|yaml)$/.test(name) && name !== 'manifest.json')
    .sort();
  return files.flatMap((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const data = (file.endsWith('.yaml') ? YAML.parse(text) : JSON.parse(text)) as { tests?: unknown[] };
    return casesOf(file, data);
  });
}

/** Deep equality; with `strict`, 1 and 1.0 differ (Jackson IntNode vs DoubleNode). */
export function sameJson(actual: unknown, expected: unknown, strict: boolean): boolean {
  const isNum = (v: unknown): boolean => typeof v === 'number' || v instanceof JsltDecimal;
  if (isNum(actual) || isNum(expected)) {
    if (!isNum(actual) || !isNum(expected)) return false;
    const a = actual instanceof JsltDecimal ? actual.value : (actual as number);
    const e = expected instanceof JsltDecimal ? expected.value : (expected as number);
    if (strict) {
      const aDecimal = actual instanceof JsltDecimal || !Number.isInteger(a);
      const eDecimal = expected instanceof JsltDecimal || !Number.isInteger(e);
      if (aDecimal !== eDecimal) return false;
    }
    return a === e;
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected) || actual.length !== expected.length) return false;
    return actual.every((item, index) => sameJson(item, expected[index], strict));
  }
  if (actual !== null && expected !== null && typeof actual === 'object' && typeof expected === 'object') {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(e).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(e, key) && sameJson(a[key], e[key], strict));
  }
  return actual === expected;
}

/** Import resolution from the fixture folder only (file name, no paths). */
function resolverFor(dir: string): (path: string) => string | undefined {
  return (path) => {
    const name = basename(path);
    const file = join(dir, name);
    return name === path && existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function runCase(testCase: JsltCase, dir: string): CaseResult {
  const fail = (reason: string): CaseResult => ({ testCase, pass: false, strictPass: false, reason });
  const compiled = jsltToFunction(testCase.query, { resolveImport: resolverFor(dir), keepDecimals: true });
  const compileMessages = compiled.diagnostics.map((d) => d.message);

  if (testCase.kind === 'json-parse-error') {
    return compiled.fn ? fail('compiled without error') : { testCase, pass: true, strictPass: true };
  }
  if (testCase.kind === 'error') {
    const expected = testCase.error ?? '';
    let message: string;
    if (!compiled.fn) message = compileMessages.join(' | ');
    else {
      try {
        const result = compiled.fn(parseJsonText(testCase.input));
        return fail(`no error; returned ${JSON.stringify(result)}`);
      } catch (error) {
        message = errorMessage(error);
      }
    }
    return message.includes(expected)
      ? { testCase, pass: true, strictPass: true }
      : fail(`error message "${message}" lacks "${expected}"`);
  }
  if (!compiled.fn) return fail(`compile error: ${compileMessages.join(' | ')}`);
  let actual: unknown;
  try {
    const input = testCase.kind === 'json-parse' ? null : parseJsonText(testCase.input);
    actual = compiled.fn(input, testCase.variables);
  } catch (error) {
    return fail(`run-time error: ${errorMessage(error)}`);
  }
  const expected: JsltValue = parseJsonText(
    testCase.kind === 'json-parse' ? testCase.query : (testCase.output ?? 'null'),
  );
  if (!sameJson(actual, expected, false))
    return fail(`expected ${testCase.output ?? testCase.query}, got ${JSON.stringify(actual)}`);
  return {
    testCase,
    pass: true,
    strictPass: sameJson(actual, expected, true),
    ...(sameJson(actual, expected, true) ? {} : { reason: 'integer/decimal differs' }),
  };
}

export interface FileRate {
  readonly file: string;
  readonly passed: number;
  readonly strictPassed: number;
  readonly total: number;
}

export function ratesByFile(results: readonly CaseResult[]): FileRate[] {
  const byFile = new Map<string, { passed: number; strictPassed: number; total: number }>();
  for (const result of results) {
    const entry = byFile.get(result.testCase.file) ?? { passed: 0, strictPassed: 0, total: 0 };
    entry.total++;
    if (result.pass) entry.passed++;
    if (result.strictPass) entry.strictPassed++;
    byFile.set(result.testCase.file, entry);
  }
  return [...byFile].map(([file, rate]) => ({ file, ...rate }));
}
