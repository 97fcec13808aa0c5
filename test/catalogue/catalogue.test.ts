/**
 * The mistake catalogue (see catalogue.ts): every base checks clean; every variant of a category
 * the checker covers is caught by an error on its line; no variant makes the checker throw.
 * Variants of pending categories (checks being built elsewhere) and hard variants are measured and
 * printed, not asserted: `npm run catalogue -- --misses` lists them.
 */
import { describe, expect, it } from 'vitest';
import {
  checkSource,
  formatMiss,
  formatScores,
  loadCatalogue,
  loadCorrectPipelines,
  runVariant,
  type Outcome,
} from './catalogue.js';
import { KNOWN_GAPS } from './known-gaps.js';

const bases = await loadCatalogue();
const outcomes: Outcome[] = bases.flatMap((base) => base.variants.map((variant) => runVariant(base, variant)));

describe('mistake catalogue', () => {
  it('has at least 150 variants across the categories', () => {
    expect(outcomes.length).toBeGreaterThanOrEqual(150);
  });

  for (const base of bases) {
    it(`base ${base.name} checks without any diagnostic`, () => {
      expect(checkSource(base.file, base.text).map((d) => `${d.code} ${d.message}`)).toEqual([]);
    });
  }

  const correct = loadCorrectPipelines();
  it('has at least 25 correct pipelines without variants', () => {
    expect(correct.length).toBeGreaterThanOrEqual(25);
  });

  for (const pipe of correct) {
    it(`correct pipeline ${pipe.name} checks without any diagnostic`, () => {
      expect(checkSource(pipe.file, pipe.text).map((d) => `${d.code} ${d.message}`)).toEqual([]);
    });
  }

  it('no variant makes the checker throw', () => {
    expect(outcomes.filter((o) => o.crashed).map((o) => `${o.base}/${o.variant.id}`)).toEqual([]);
  });

  for (const o of outcomes.filter((o) => o.status === 'certain')) {
    it(`${o.variant.category}: ${o.base}/${o.variant.id}`, () => {
      expect(o.caught, formatMiss(o)).toBe(true);
    });
  }

  for (const o of outcomes.filter((o) => o.status === 'gap')) {
    it(`known gap still missed (remove it from known-gaps.ts once caught): ${o.base}/${o.variant.id}`, () => {
      expect(o.caught).toBe(false);
    });
  }

  it('names only variants that exist in known-gaps.ts', () => {
    const ids = new Set(outcomes.map((o) => `${o.base}/${o.variant.id}`));
    expect([...KNOWN_GAPS].filter((id) => !ids.has(id))).toEqual([]);
  });

  it('measures the gaps, pending and hard variants', () => {
    const measured = outcomes.filter((o) => o.status !== 'certain');
    console.log(`mistake catalogue, measured:\n${formatScores(measured)}`);
    expect(measured.every((o) => o.expectedLine > 0)).toBe(true);
  });
});
