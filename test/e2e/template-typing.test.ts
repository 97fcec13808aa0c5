/**
 * The `{{ }}` typing rule at run time: fixtures/template-typing/typing.pipe holds a pipeline with
 * each form and a test block stating what each one yields; `pipec test` runs it. (The build-time
 * side is the golden test/cases/braces/template-typing.pipe.)
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './service-process.js';

describe('{{ }} typing', () => {
  it('a value that is exactly one {{ }} keeps its type and its null; other text with {{ }} is a string', async () => {
    const { code, output } = await runCli([
      'test',
      path.join(import.meta.dirname, 'fixtures', 'template-typing'),
      '--color',
      'never',
    ]);
    const text = [...output.out, ...output.err].join('\n');
    expect(code, text).toBe(0);
    expect(text).toContain('1 passed, 0 failed');
  });
});
