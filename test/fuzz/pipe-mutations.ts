/**
 * Mutated `.pipe` sources for the compiler fuzz run: every case under test/cases and every example
 * is a seed; a mutation deletes, duplicates, swaps or splices pieces of it, or inserts language
 * tokens and hostile text (deep nesting, huge numbers, NUL and lone surrogates, imports of devices
 * and of files outside the project). fast-check makes them from a seed, so a run is repeatable.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';

export interface Seed {
  readonly name: string;
  readonly text: string;
}

/** Every .pipe file under the folders (sorted, so the seed list is stable across machines). */
export function loadSeeds(folders: readonly string[]): Seed[] {
  const seeds: Seed[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.pipe'))
        seeds.push({ name: full, text: fs.readFileSync(full, 'utf8') });
    }
  };
  for (const folder of folders) walk(folder);
  return seeds;
}

/** Words and fragments of the language, and text meant to hurt a lexer, parser or checker. */
const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '{{',
  '}}',
  '"',
  '"""',
  ':',
  ',',
  '->',
  '.',
  '//',
  '/*',
  '*/',
  '\\',
  '$',
  'pipeline p ',
  'trigger ',
  'http ',
  'http-file ',
  'event ',
  'scheduler ',
  'mcp-tool ',
  'choice ',
  'when ',
  'otherwise ',
  'branch b ',
  'try ',
  'catch ',
  'for-each ',
  'respond 200 ',
  'fail ',
  'on-error ',
  'schema S ',
  'account a: ',
  'global g = ',
  'store s ',
  'test "t" ',
  'expect ',
  'mock ',
  'import ',
  'as X ',
  'env("X")',
  'file("x.json")',
  'message.body.',
  'step.x.',
  'global.',
  'account.',
  '$.body[?(@.a < 1)]',
  '$..*',
  'jolt { spec: [] }',
  'jslt { query: "." }',
  '{{ CONCAT(1, "a") }}',
  '{{ message.body.a.b.c }}',
  '{{ NOW() + 1 }}',
  '{{ FORMATDATE(NOW(), "yyyy") }}',
  '1e309',
  '-0',
  '0x10',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  '10MB',
  '999999999GB',
  '30s',
  '0ms',
  '\u0000',
  '\ud800',
  '\udfff',
  '\u202e',
  '\ufeff',
  '😀',
  '\r',
  '\t',
  '\u2028',
  'import "/dev/zero" as Z\n',
  'import "/etc/passwd" as P\n',
  'import "../../../../package.json" as Q\n',
  'import "./missing.pipe"\n',
];

const hostileText = fc.oneof(
  fc.constantFrom(...TOKENS),
  fc.nat({ max: 2000 }).map((n) => '{'.repeat(n)),
  fc.nat({ max: 2000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.nat({ max: 500 }).map((n) => '{{ '.repeat(n)),
  fc.nat({ max: 300 }).map((n) => `{{ ${'('.repeat(n)}1${')'.repeat(n)} }}`),
  fc.nat({ max: 20_000 }).map((n) => `"${'a'.repeat(n)}"`),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

type Mutation = (text: string, other: string) => string;

/** One edit, its positions drawn as fractions of the text so one arbitrary fits every seed. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 0.3, noNaN: true })).map(
    ([at, len]) =>
      (t: string) =>
        cut(t, at, len, ''),
  ),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), hostileText).map(
    ([at, insert]) =>
      (t: string) =>
        cut(t, at, 0, insert),
  ),
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 0.2, noNaN: true }))
    .map(([at, len]) => (t: string) => {
      const start = Math.floor(at * t.length);
      const piece = t.slice(start, start + Math.floor(len * t.length));
      return t.slice(0, start) + piece + piece + t.slice(start + piece.length);
    }),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => (t: string) => {
    const lines = t.split('\n');
    const i = a % lines.length;
    const j = b % lines.length;
    [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
    return lines.join('\n');
  }),
  fc
    .tuple(
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 0.3, noNaN: true }),
    )
    .map(([at, from, len]) => (t: string, other: string) => {
      const start = Math.floor(from * other.length);
      return cut(t, at, 0, other.slice(start, start + Math.floor(len * other.length)));
    }),
  fc
    .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('"', '{', '}', ':', ',', '\n', ' '))
    .map(([at, ch]) => (t: string) => {
      // Replace one structural character with another: the cheapest way to unbalance a file.
      const i = Math.floor(at * t.length);
      return t.slice(0, i) + ch + t.slice(i + 1);
    }),
);

function cut(text: string, at: number, length: number, insert: string): string {
  const start = Math.floor(at * text.length);
  return text.slice(0, start) + insert + text.slice(start + Math.floor(length * text.length));
}

/** A seed with one to four mutations (another seed supplies spliced text). */
export function mutatedSource(seeds: readonly Seed[]): fc.Arbitrary<{ seed: string; text: string }> {
  const index = fc.nat({ max: seeds.length - 1 });
  return fc.tuple(index, index, fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([i, j, edits]) => {
    const seed = seeds[i] ?? { name: '', text: '' };
    const other = seeds[j]?.text ?? '';
    return { seed: seed.name, text: edits.reduce((t, edit) => edit(t, other), seed.text) };
  });
}
