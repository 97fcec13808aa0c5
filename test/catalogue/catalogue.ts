/**
 * The mistake catalogue: realistic, correct pipelines (bases/) and one-mistake variants of them
 * (variants/), each a single edit of its base with the line its error must point at. A variant is
 * caught only when an ERROR is reported on that line; a base must check without any diagnostic.
 * Shared by the test (catalogue.test.ts) and `npm run catalogue` (scripts/catalogue.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { compile } from '../../compiler/compile.js';
import { loadRegistry } from '../../compiler/connectors/load-registry.js';
import { projectHost } from '../../compiler/project-files.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { KNOWN_GAPS } from './known-gaps.js';

/** What kind of mistake a variant makes (the categories the hidden catalogue scores by). */
export type Category =
  | 'parameter'
  | 'double-braces'
  | 'undefined-name'
  | 'duplicate'
  | 'cron'
  | 'duration'
  | 'unreachable'
  | 'closed-shape'
  | 'contract'
  | 'jsonpath'
  | 'envelope'
  | 'for-each'
  | 'transform-output'
  | 'secret'
  | 'never-match'
  | 'regex-param'
  | 'dependent-param';

/** Categories whose checks are being built: reported as a score, never failing the test (none now). */
export const PENDING_CATEGORIES: ReadonlySet<Category> = new Set<Category>([]);

export interface Variant {
  /** Unique within its base. */
  readonly id: string;
  readonly category: Category;
  /** Text of the base to replace: it must occur exactly once. */
  readonly find: string;
  /** The mistake ('' deletes `find`). */
  readonly replace: string;
  /** A text on the line the error must point at, unique in the mutated file; default: the line where `find` started. */
  readonly line?: string;
  /** A mistake only a deeper analysis can catch: measured, never asserted. */
  readonly hard?: boolean;
}

export interface Base {
  readonly name: string;
  readonly file: string;
  readonly text: string;
  readonly variants: readonly Variant[];
}

/** certain: asserted; gap: a certain category's variant not caught yet (known-gaps.ts); pending, hard: measured. */
export type Status = 'certain' | 'gap' | 'pending' | 'hard';

export function statusOf(base: string, variant: Variant): Status {
  if (variant.hard) return 'hard';
  if (PENDING_CATEGORIES.has(variant.category)) return 'pending';
  return KNOWN_GAPS.has(`${base}/${variant.id}`) ? 'gap' : 'certain';
}

export interface Outcome {
  readonly base: string;
  readonly variant: Variant;
  readonly status: Status;
  readonly expectedLine: number;
  readonly caught: boolean;
  /** An internal error (PIPE9001): a bug whatever the variant. */
  readonly crashed: boolean;
  /** The errors reported, as `line:code`, for the report of a miss. */
  readonly errors: readonly string[];
}

const registry = await loadRegistry();

export const CATALOGUE_DIR = import.meta.dirname;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function uniqueIndex(text: string, needle: string, what: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${what}: text not found: ${JSON.stringify(needle)}`);
  if (text.indexOf(needle, at + 1) >= 0)
    throw new Error(`${what}: text occurs more than once: ${JSON.stringify(needle)}`);
  return at;
}

/** The base with the variant's edit, and the line its error must be on. */
export function applyVariant(base: Base, variant: Variant): { text: string; expectedLine: number } {
  const what = `${base.name}/${variant.id}`;
  const at = uniqueIndex(base.text, variant.find, what);
  const text = base.text.slice(0, at) + variant.replace + base.text.slice(at + variant.find.length);
  const expectedLine =
    variant.line === undefined ? lineAt(text, at) : lineAt(text, uniqueIndex(text, variant.line, what));
  return { text, expectedLine };
}

/** Checks one source as `pipec check` would a file of the base's folder. */
export function checkSource(file: string, text: string): readonly Diagnostic[] {
  return compile({
    files: [{ path: file, text }],
    registry,
    host: projectHost([path.dirname(file)]),
    emit: false,
    serviceName: 'catalogue',
    dependencies: {},
  }).diagnostics;
}

export function lineOf(diagnostic: Diagnostic, text: string): number {
  return lineAt(text, diagnostic.primary.span.start);
}

export function runVariant(base: Base, variant: Variant): Outcome {
  const { text, expectedLine } = applyVariant(base, variant);
  const diagnostics = checkSource(base.file, text);
  const errors = diagnostics.filter((d) => d.severity === 'error' && d.primary.span.file === base.file);
  return {
    base: base.name,
    variant,
    status: statusOf(base.name, variant),
    expectedLine,
    caught: errors.some((d) => lineOf(d, text) === expectedLine),
    crashed: diagnostics.some((d) => d.code === 'PIPE9001'),
    errors: errors.map((d) => `${lineOf(d, text)}:${d.code}`),
  };
}

/**
 * The correct pipelines of bases-correct/: written the way independent authors write them (open
 * schemas read beyond what they declare, defensive reads, several publishers of an event…), to
 * keep the checker free of false positives. They have no variants; each must check clean.
 */
export function loadCorrectPipelines(): { name: string; file: string; text: string }[] {
  const dir = path.join(CATALOGUE_DIR, 'bases-correct');
  return fs
    .readdirSync(dir)
    .filter((entry) => entry.endsWith('.pipe'))
    .sort()
    .map((entry) => {
      const file = path.join(dir, entry);
      return { name: entry.slice(0, -'.pipe'.length), file, text: fs.readFileSync(file, 'utf8') };
    });
}

/** Every base of bases/ with its variants (variants/<base>.ts). */
export async function loadCatalogue(): Promise<Base[]> {
  const basesDir = path.join(CATALOGUE_DIR, 'bases');
  const bases: Base[] = [];
  for (const entry of fs.readdirSync(basesDir).sort()) {
    if (!entry.endsWith('.pipe')) continue;
    const name = entry.slice(0, -'.pipe'.length);
    const file = path.join(basesDir, entry);
    const variantsFile = path.join(CATALOGUE_DIR, 'variants', `${name}.ts`);
    const variants = fs.existsSync(variantsFile)
      ? ((await import(variantsFile)) as { variants: Variant[] }).variants
      : [];
    bases.push({ name, file, text: fs.readFileSync(file, 'utf8'), variants });
  }
  return bases;
}

export interface Score {
  readonly caught: number;
  readonly total: number;
}

/** Caught / total per status and category, in a stable order. */
export function scoreBy(outcomes: readonly Outcome[]): Map<string, Score> {
  const scores = new Map<string, Score>();
  const add = (key: string, caught: boolean) => {
    const s = scores.get(key) ?? { caught: 0, total: 0 };
    scores.set(key, { caught: s.caught + (caught ? 1 : 0), total: s.total + 1 });
  };
  for (const o of [...outcomes].sort((a, b) => a.variant.category.localeCompare(b.variant.category))) {
    add(`${o.status} ${o.variant.category}`, o.caught);
    add(`${o.status} (all)`, o.caught);
  }
  return new Map([...scores].sort(([a], [b]) => a.localeCompare(b)));
}

export function formatScores(outcomes: readonly Outcome[]): string {
  const lines: string[] = [];
  for (const [key, s] of scoreBy(outcomes)) {
    const pct = s.total === 0 ? 0 : Math.round((100 * s.caught) / s.total);
    lines.push(
      `${key.padEnd(34)} ${String(s.caught).padStart(4)}/${String(s.total).padEnd(4)} ${String(pct).padStart(3)}%`,
    );
  }
  return lines.join('\n');
}

export function formatMiss(o: Outcome): string {
  return `${o.status} ${o.variant.category} ${o.base}/${o.variant.id}: expected an error on line ${o.expectedLine}, got [${o.errors.join(', ')}]`;
}
