/**
 * The JSLT output shapes inferred at build time (compiler/jslt/infer-shape.ts) against what the
 * compiled queries really give on the reference fixtures: for every query fixture that runs, and
 * for the input's exact (closed) shape, the same loosened, and unknown, the inferred shape must
 * accept the real output (every field allowed, every required field present, every value typed).
 */
import { describe, expect, it } from 'vitest';
import { jsltToFunction } from '../../compiler/jslt/index.js';
import { inferJslt, inferJsltShape } from '../../compiler/jslt/infer-shape.js';
import { asMessageShape } from '../../compiler/types/output-shape.js';
import { typeOfValue } from '../../compiler/types/type-ops.js';
import { UNKNOWN } from '../../compiler/types/pipe-type.js';
import { parseJsonText, toPlainJson } from '../../runtime/jslt/index.js';
import { fixtureDir, loadCases } from './jslt-support.js';
import { loosened, mismatch } from './shape-match.js';

const dir = fixtureDir();

describe('inferred JSLT shapes accept the real outputs of the reference fixtures', () => {
  if (!dir) {
    it('is skipped without fixtures (and fails in CI)', () => expect(process.env.CI).not.toBe('true'));
    return;
  }
  it('accepts every output, for exact, loose and unknown input shapes', () => {
    const failures: string[] = [];
    let checked = 0;
    let typed = 0;
    for (const c of loadCases(dir).filter((t) => t.kind === 'query' && t.variables === undefined)) {
      const compiled = jsltToFunction(c.query);
      if (!compiled.fn) continue;
      let input: unknown;
      let output: unknown;
      try {
        input = toPlainJson(parseJsonText(c.input));
        output = JSON.parse(JSON.stringify(compiled.fn(structuredClone(input)) ?? null)) as unknown;
      } catch {
        continue;
      }
      const exact = typeOfValue(input);
      for (const [label, shape] of [
        ['exact', exact],
        ['loose', loosened(exact)],
        ['unknown', UNKNOWN],
      ] as const) {
        const inferred = inferJsltShape(c.query, shape);
        if (label === 'exact' && inferred.kind !== 'unknown') typed += 1;
        const problem = mismatch(inferred, output);
        if (problem) failures.push(`${c.file}#${c.index} ${c.query} (${label} input): ${problem}`);
        if (output !== null && typeof output === 'object') {
          const asMessage = mismatch(asMessageShape(inferred), output);
          if (asMessage) failures.push(`${c.file}#${c.index} ${c.query} (${label} input, message shape): ${asMessage}`);
        }
        checked += 1;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(300);
    // most outputs get a shape: the check above is not vacuous
    expect(typed).toBeGreaterThan(200);
  });

  it('reports only key reads that give null: the query with another absent key gives the same output', () => {
    const failures: string[] = [];
    let reported = 0;
    for (const c of loadCases(dir).filter((t) => t.kind === 'query' && t.variables === undefined)) {
      const compiled = jsltToFunction(c.query);
      if (!compiled.fn) continue;
      let input: unknown;
      let output: string;
      try {
        input = toPlainJson(parseJsonText(c.input));
        output = JSON.stringify(compiled.fn(structuredClone(input)) ?? null);
      } catch {
        continue;
      }
      for (const read of inferJslt(c.query, typeOfValue(input)).absentReads) {
        if (c.query.slice(read.start, read.end) !== read.key) continue;
        reported += 1;
        const renamed = `${c.query.slice(0, read.start)}noInputHasThisKey${c.query.slice(read.end)}`;
        const again = JSON.stringify(jsltToFunction(renamed).fn?.(structuredClone(input)) ?? null);
        if (again !== output) failures.push(`${c.file}#${c.index} ${c.query}: \`.${read.key}\` is read`);
      }
    }
    expect(failures).toEqual([]);
    expect(reported).toBeGreaterThan(0);
  });
});
