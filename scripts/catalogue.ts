/**
 * `npm run catalogue [base…] [--misses]`: checks every one-mistake variant of test/catalogue and
 * prints the score per status (certain, pending, hard) and category; with --misses, each variant
 * not caught with the errors that were reported instead.
 */
import {
  checkSource,
  formatMiss,
  formatScores,
  loadCatalogue,
  runVariant,
  type Outcome,
} from '../test/catalogue/catalogue.js';

const args = process.argv.slice(2);
const showMisses = args.includes('--misses');
const only = new Set(args.filter((a) => !a.startsWith('--')));

const bases = (await loadCatalogue()).filter((b) => only.size === 0 || only.has(b.name));
const outcomes: Outcome[] = [];
let problems = 0;
for (const base of bases) {
  const diagnostics = checkSource(base.file, base.text);
  if (diagnostics.length > 0) {
    problems++;
    console.log(`base ${base.name} is not clean: ${diagnostics.map((d) => `${d.code} ${d.message}`).join('; ')}`);
  }
  for (const variant of base.variants) {
    try {
      outcomes.push(runVariant(base, variant));
    } catch (error) {
      problems++;
      console.log(`bad variant: ${(error as Error).message}`);
    }
  }
}
for (const o of outcomes.filter((o) => o.crashed)) {
  problems++;
  console.log(`internal error: ${o.base}/${o.variant.id}`);
}
if (showMisses) for (const o of outcomes.filter((o) => !o.caught)) console.log(formatMiss(o));
console.log(formatScores(outcomes));
process.exitCode = problems > 0 ? 1 : 0;
