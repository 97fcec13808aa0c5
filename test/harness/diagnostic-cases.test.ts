/**
 * Diagnostic goldens: every test/cases/<phase>/<case>.pipe is compiled and its rendered
 * diagnostics compared with <case>.diagnostics.txt beside it. Cases under valid/ must be clean.
 * A line comment `// error: PIPE3001` (or `// warning: …`) in a case also requires that code on
 * that line, independently of the prose.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileForTest, renderForGolden } from './compile-case.js';
import { expectGolden, findFiles } from './golden.js';

const casesDir = path.resolve(import.meta.dirname, '../cases');
const cases = findFiles(casesDir, '.pipe');

describe('diagnostic goldens', () => {
  it('has at least 30 distinct mistakes', () => {
    expect(cases.filter((c) => !c.includes(`${path.sep}valid${path.sep}`)).length).toBeGreaterThanOrEqual(30);
  });

  for (const file of cases) {
    const name = path.relative(casesDir, file);
    const valid = name.startsWith(`valid${path.sep}`);
    it(name, () => {
      const result = compileForTest([file], { base: casesDir });
      if (valid) {
        expect(renderForGolden(result, casesDir)).toBe('No problems found.\n');
        return;
      }
      expect(result.diagnostics.length, 'an error case must report something').toBeGreaterThan(0);
      expectGolden(file.replace(/\.pipe$/, '.diagnostics.txt'), renderForGolden(result, casesDir));
      const source = result.sources.get(file);
      const text = fs.readFileSync(file, 'utf8');
      text.split('\n').forEach((line, i) => {
        const marker = /\/\/\s*(error|warning):\s*(PIPE\d{4})/.exec(line);
        if (!marker || !source) return;
        const found = result.diagnostics.some(
          (d) => d.code === marker[2] && source.positionOf(d.primary.span.start).line === i + 1,
        );
        expect(found, `${name}:${i + 1} expects ${marker[2]}`).toBe(true);
      });
    });
  }
});
