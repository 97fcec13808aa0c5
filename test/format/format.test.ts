/**
 * `pipec fmt` tests: goldens (`<case>.input.pipe` → `<case>.expected.pipe`), and over every example
 * and test case that parses cleanly: formatting is idempotent and never changes the AST (spans aside).
 * Set UPDATE_GOLDEN=1 to rewrite the expected files after a deliberate layout change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../compiler/ast/parse-file.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import { formatPipe } from '../../compiler/format/format.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '../..');

function pipeFilesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.pipe'))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`))
    .sort();
}

/** The AST with every position removed, so only meaning is compared. */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'span' || key.endsWith('Span') || key === 'textStart' || key === 'offsets' || key === 'path') continue;
    out[key] = withoutPositions(inner);
  }
  return out;
}

function formatted(file: string, text: string): string {
  const result = formatPipe(file, text);
  if (result.text === undefined)
    throw new Error(`${file} did not format: ${result.diagnostics.map((d) => d.message).join('; ')}`);
  return result.text;
}

describe('fmt goldens', () => {
  const cases = fs
    .readdirSync(HERE)
    .filter((f) => f.endsWith('.input.pipe'))
    .sort();
  it('has at least six layouts', () => expect(cases.length).toBeGreaterThanOrEqual(6));
  for (const input of cases) {
    it(input.replace('.input.pipe', ''), () => {
      const inputPath = path.join(HERE, input);
      const expectedPath = inputPath.replace('.input.pipe', '.expected.pipe');
      const actual = formatted(inputPath, fs.readFileSync(inputPath, 'utf8'));
      if (process.env['UPDATE_GOLDEN']) fs.writeFileSync(expectedPath, actual);
      expect(actual).toBe(fs.readFileSync(expectedPath, 'utf8'));
      expect(formatted(expectedPath, actual)).toBe(actual);
    });
  }
});

describe('fmt over every example and test case', () => {
  const files = [
    ...pipeFilesUnder(path.join(ROOT, 'examples')),
    ...pipeFilesUnder(path.join(ROOT, 'test/cases')),
    ...pipeFilesUnder(HERE),
  ];
  it('finds files to check', () => expect(files.length).toBeGreaterThan(5));
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const parsed = parseFile(file, text);
    if (hasErrors(parsed.diagnostics)) continue;
    it(path.relative(ROOT, file), () => {
      const once = formatted(file, text);
      expect(formatted(file, once)).toBe(once);
      const reparsed = parseFile(file, once);
      expect(reparsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(withoutPositions(reparsed.value)).toEqual(withoutPositions(parsed.value));
      // Every comment survives, in order.
      const comments = (s: string) => s.match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)?.map((c) => c.trimEnd()) ?? [];
      expect(comments(stripStrings(once))).toEqual(comments(stripStrings(text)));
    });
  }
});

describe('fmt refuses files with syntax errors', () => {
  it('returns diagnostics and no text', () => {
    const result = formatPipe(
      'bad.pipe',
      'pipeline p {\n  trigger http { method: POST, path: "/x" }\n  log { message: }\n',
    );
    expect(result.text).toBeUndefined();
    expect(result.diagnostics.length).toBeGreaterThan(0);
  });
  it('formats an empty file to an empty file', () => {
    expect(formatPipe('empty.pipe', '').text).toBe('');
  });
});

/** Blanks out string and `{{ }}` contents so `//` inside a URL is not taken for a comment. */
function stripStrings(text: string): string {
  return text.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\{\{[\s\S]*?\}\}/g, '""');
}

describe('pipec fmt (command)', () => {
  it('--check lists files that would change and exits 1; without it rewrites them', async () => {
    const { runFmt } = await import('../../compiler/cli/dx-commands.js');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-fmt-'));
    try {
      const messy = path.join(dir, 'messy.pipe');
      const clean = path.join(dir, 'clean.pipe');
      fs.writeFileSync(messy, 'global  x=1\n');
      fs.writeFileSync(clean, 'global x = 1\n');
      const out: string[] = [];
      const io = { out: (t: string) => out.push(t), err: () => undefined };
      expect(runFmt([dir], true, io)).toBe(1);
      expect(out.map((l) => path.basename(l))).toEqual(['messy.pipe']);
      expect(fs.readFileSync(messy, 'utf8')).toBe('global  x=1\n');
      expect(runFmt([dir], false, io)).toBe(0);
      expect(fs.readFileSync(messy, 'utf8')).toBe('global x = 1\n');
      expect(runFmt([dir], true, io)).toBe(0);
      fs.writeFileSync(path.join(dir, 'broken.pipe'), 'pipeline p {\n');
      const err: string[] = [];
      expect(runFmt([dir], false, { out: () => undefined, err: (t) => err.push(t) })).toBe(1);
      expect(err.join('')).toContain('error');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
