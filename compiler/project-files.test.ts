/** How a build names its source files: relative to the project folder, whatever the current directory. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectSourcePath } from './project-files.js';

const repo = path.resolve(import.meta.dirname, '..');

describe('projectSourcePath', () => {
  it('names files relative to --root', () => {
    const name = projectSourcePath([path.join(repo, 'examples/hello')], path.join(repo, 'examples'));
    expect(name(path.join(repo, 'examples/hello/hello.pipe'))).toBe('hello/hello.pipe');
  });

  it('without --root, relative to the deepest folder holding every input', () => {
    const name = projectSourcePath([path.join(repo, 'examples/hello'), path.join(repo, 'examples/orders/x.pipe')]);
    expect(name(path.join(repo, 'examples/hello/hello.pipe'))).toBe('hello/hello.pipe');
    expect(name(path.join(repo, 'examples/orders/x.pipe'))).toBe('orders/x.pipe');
  });

  it('gives the same names whatever the current directory and however the inputs are written', () => {
    const cwd = process.cwd();
    try {
      process.chdir(repo);
      const fromRepo = projectSourcePath(['examples/hello'])('examples/hello/hello.pipe');
      process.chdir(path.join(repo, 'examples'));
      const fromExamples = projectSourcePath(['hello'])('hello/hello.pipe');
      expect(fromRepo).toBe('hello.pipe');
      expect(fromExamples).toBe('hello.pipe');
    } finally {
      process.chdir(cwd);
    }
  });

  it('keeps the absolute path of a file outside the project', () => {
    const name = projectSourcePath([path.join(repo, 'examples/hello')]);
    expect(name(path.join(repo, 'README.md'))).toBe(path.join(repo, 'README.md'));
  });
});
