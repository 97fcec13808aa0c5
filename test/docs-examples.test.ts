/**
 * Every `.pipe` example in the documentation still checks clean. Each fenced block tagged `pipe`
 * in README.md, docs/ and the READMEs under examples/, grammar/, compiler/, runtime/ and editors/
 * is checked with the real CLI, as the file it shows. Words after `pipe` on the fence line:
 *
 *   expect=PIPE4006[,PIPE…]  a deliberate mistake: exactly these codes, each at least once
 *   file=NAME                the file the block shows (default: example.pipe)
 *   with=PATH                checked together with a folder or .pipe file of the repository, or
 *                            with the block `file=PATH` of the same document
 *   fmt=before / fmt=after   `pipec fmt` turns the `before` block into the next `after` block
 *
 * A block that declares `test "…"` blocks is a test file: `pipec test` runs it beside its `with`
 * pipelines (their own *.test.pipe files left out) and every test must pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from './e2e/service-process.js';

export interface DocBlock {
  readonly doc: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly text: string;
  readonly attrs: Readonly<Record<string, string>>;
}

/** The fenced `pipe` blocks of a markdown text (indented fences too, as in lists). */
export function pipeBlocks(markdown: string, doc: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```pipe(?:\s+(.*))?$/.exec(lines[i] as string);
    if (!open) continue;
    const indent = open[1] as string;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j++)
      body.push((lines[j] as string).slice(indent.length));
    const attrs = Object.fromEntries(
      (open[2] ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((word) => {
          const eq = word.indexOf('=');
          return eq < 0 ? [word, 'true'] : [word.slice(0, eq), word.slice(eq + 1)];
        }),
    );
    blocks.push({ doc, line: i + 1, text: `${body.join('\n')}\n`, attrs });
    i = j;
  }
  return blocks;
}

function documents(): string[] {
  const found = ['README.md'];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(child);
      else if (entry.isFile() && (rel === 'docs' ? entry.name.endsWith('.md') : entry.name === 'README.md'))
        found.push(child);
    }
  };
  for (const dir of ['docs', 'examples', 'grammar', 'compiler', 'runtime', 'editors']) walk(dir);
  return found;
}

/** Copies what `with` names into `dir`: a repository folder (without its tests), a .pipe file, or a block of the same document. */
function placeContext(block: DocBlock, siblings: readonly DocBlock[], dir: string): void {
  const context = block.attrs['with'];
  if (!context) return;
  const sibling = siblings.find((b) => b.attrs['file'] === context);
  if (sibling) {
    fs.writeFileSync(path.join(dir, context), sibling.text);
    return;
  }
  const source = path.join(REPO_ROOT, context);
  if (!fs.existsSync(source)) throw new Error(`${block.doc}:${block.line}: with=${context} names nothing`);
  if (fs.statSync(source).isFile()) {
    fs.copyFileSync(source, path.join(dir, path.basename(source)));
    return;
  }
  // Beside the block, as a test file sits beside its pipelines.
  fs.cpSync(source, dir, {
    recursive: true,
    filter: (src) => !src.endsWith('.test.pipe') && !src.endsWith('.test.ts') && !src.includes('node_modules'),
  });
}

const isTestFile = (text: string): boolean => /^\s*test\s+"/m.test(text);

async function checkBlock(
  block: DocBlock,
  siblings: readonly DocBlock[],
): Promise<{ codes: string[]; report: string }> {
  const dir = tempDir('doc-example');
  placeContext(block, siblings, dir);
  const name = block.attrs['file'] ?? (isTestFile(block.text) ? 'example.test.pipe' : 'example.pipe');
  fs.writeFileSync(path.join(dir, name), block.text);
  if (isTestFile(block.text)) {
    const { code, output } = await runCli(['test', dir, '--color', 'never']);
    return { codes: code === 0 ? [] : ['tests failed'], report: [...output.out, ...output.err].join('\n') };
  }
  const { output } = await runCli(['check', dir, '--format', 'json']);
  const diagnostics = JSON.parse(output.out.join('') || '[]') as Array<{ code: string; message: string; line: number }>;
  return {
    codes: [...new Set(diagnostics.map((d) => d.code))].sort(),
    report: diagnostics.map((d) => `${d.code} line ${d.line}: ${d.message}`).join('\n'),
  };
}

const allBlocks = documents().flatMap((doc) => pipeBlocks(fs.readFileSync(path.join(REPO_ROOT, doc), 'utf8'), doc));

describe('documented .pipe examples', () => {
  it('are found (README tour, testing and formatting docs)', () => {
    expect(allBlocks.length).toBeGreaterThanOrEqual(6);
    expect(allBlocks.some((b) => b.doc === 'README.md' && b.attrs['expect'] === 'PIPE4006')).toBe(true);
  });

  for (const block of allBlocks) {
    const expected = (block.attrs['expect'] ?? '').split(',').filter(Boolean).sort();
    const siblings = allBlocks.filter((b) => b.doc === block.doc);
    it(`${block.doc}:${block.line} ${expected.length > 0 ? `shows ${expected.join(', ')}` : 'checks clean'}`, async () => {
      const { codes, report } = await checkBlock(block, siblings);
      expect(codes, report).toEqual(expected);
    }, 60_000);
  }
});

describe('documented formatting', () => {
  const pairs = allBlocks.flatMap((block, i) => {
    const next = allBlocks[i + 1];
    return block.attrs['fmt'] === 'before' && next?.doc === block.doc && next.attrs['fmt'] === 'after'
      ? [[block, next] as const]
      : [];
  });

  it('has its before / after pairs', () => {
    expect(pairs.length).toBe(allBlocks.filter((b) => b.attrs['fmt'] === 'before').length);
    expect(pairs.length).toBeGreaterThan(0);
  });

  for (const [before, after] of pairs) {
    it(`${before.doc}:${before.line} formats to the block at line ${after.line}`, async () => {
      const file = path.join(tempDir('doc-fmt'), 'example.pipe');
      fs.writeFileSync(file, before.text);
      expect((await runCli(['fmt', file])).code).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe(after.text);
    });
  }
});

describe('pipeBlocks', () => {
  it('reads the fence words and the indented body', () => {
    const md = 'x\n  ```pipe expect=PIPE1,PIPE2 file=a.pipe\n  pipeline p {\n  }\n  ```\n```sh\nnot pipe\n```\n';
    expect(pipeBlocks(md, 'd.md')).toEqual([
      { doc: 'd.md', line: 2, text: 'pipeline p {\n}\n', attrs: { expect: 'PIPE1,PIPE2', file: 'a.pipe' } },
    ]);
  });
});
