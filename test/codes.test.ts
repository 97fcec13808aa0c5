/**
 * The diagnostic catalogue keeps its promises: codes are well-formed and unique (the catalogue
 * throws on duplicates at load), each has a title and an explanation, docs/diagnostics.md is fresh,
 * and every user-facing code is exercised by at least one golden case or test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODES } from '../base/diagnostics/codes.js';
import { renderDiagnosticsDoc } from '../scripts/diagnostics-doc.js';
import { findFiles } from './harness/golden.js';

const root = path.resolve(import.meta.dirname, '..');

describe('diagnostic code catalogue', () => {
  it('codes are PIPE + 4 digits in their range, with a short title and an explanation', () => {
    for (const [code, info] of Object.entries(CODES)) {
      expect(code).toMatch(/^PIPE[1-79]\d{3}$/);
      expect(info.title.split(' ').length, code).toBeLessThanOrEqual(6);
      expect(info.explain.length, code).toBeGreaterThan(40);
    }
  });

  it('docs/diagnostics.md is generated from the catalogue (npm run docs:codes)', () => {
    expect(fs.readFileSync(path.join(root, 'docs/diagnostics.md'), 'utf8')).toBe(renderDiagnosticsDoc());
  });

  it('every code appears in a golden case or a test', () => {
    const haystack = [
      ...findFiles(path.join(root, 'test'), '.diagnostics.txt'),
      ...findFiles(path.join(root, 'test'), '.ts'),
      ...findFiles(path.join(root, 'grammar'), '.test.ts'),
      ...findFiles(path.join(root, 'compiler'), '.test.ts'),
    ]
      .filter((f) => !f.endsWith('codes.test.ts'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    const missing = Object.keys(CODES).filter((code) => !haystack.includes(code));
    expect(missing).toEqual([]);
  });
});
