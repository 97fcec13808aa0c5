/**
 * The VS Code extension folder is well-formed: the manifest contributes the `pipe` language and a
 * grammar file that exists, every grammar regex compiles, and the scopes editors rely on are there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const EXTENSION = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../editors/vscode');

interface Manifest {
  main: string;
  contributes: {
    languages: { id: string; extensions: string[]; configuration: string }[];
    grammars: { language: string; scopeName: string; path: string }[];
  };
}

describe('editors/vscode', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION, 'package.json'), 'utf8')) as Manifest;

  it('contributes the pipe language with a grammar, a configuration and an entry point', () => {
    expect(manifest.contributes.languages[0]).toMatchObject({ id: 'pipe', extensions: ['.pipe'] });
    const grammar = manifest.contributes.grammars[0];
    expect(grammar).toMatchObject({ language: 'pipe', scopeName: 'source.pipe' });
    for (const file of [grammar?.path ?? '', manifest.contributes.languages[0]?.configuration ?? '', manifest.main]) {
      expect(fs.existsSync(path.join(EXTENSION, file)), file).toBe(true);
    }
    expect(fs.readFileSync(path.join(EXTENSION, manifest.main), 'utf8')).toContain("args: ['lsp']");
  });

  it('has a grammar whose patterns compile and that scopes comments, braces, strings and durations', () => {
    const text = fs.readFileSync(path.join(EXTENSION, 'syntaxes/pipe.tmLanguage.json'), 'utf8');
    const grammar = JSON.parse(text) as unknown;
    const patterns: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if ((key === 'match' || key === 'begin' || key === 'end') && typeof value === 'string') patterns.push(value);
          else walk(value);
        }
      }
    };
    walk(grammar);
    expect(patterns.length).toBeGreaterThan(20);
    for (const pattern of patterns) expect(() => new RegExp(pattern), pattern).not.toThrow();
    for (const scope of [
      'comment.line.double-slash.pipe',
      'comment.block.pipe',
      'meta.embedded.expression.pipe',
      'string.quoted.triple.pipe',
      'constant.numeric.duration.pipe',
      'constant.numeric.size.pipe',
      'keyword.control.pipe',
    ]) {
      expect(text).toContain(scope);
    }
    const duration = patterns.find((p) => p.includes('(ms|s|m|h|d)'));
    expect(new RegExp(duration ?? 'x').test('timeout: 30s')).toBe(true);
    const braces = patterns.find((p) => p === '\\{\\{');
    expect(braces).toBeDefined();
  });
});
