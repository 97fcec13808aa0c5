/**
 * The project's own code is formatted by prettier (.prettierrc.json; .prettierignore says which
 * files: our TypeScript and JavaScript, not generated files or fixtures). `npm run format` fixes
 * what this test reports; `npm run lint` runs both this and the layering check.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

function trackedSources(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts', '*.mjs', '*.js'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return listed.split('\0').filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)));
}

describe('formatting', () => {
  it('every source file is formatted as prettier writes it', async () => {
    const ignorePath = path.join(ROOT, '.prettierignore');
    const unformatted: string[] = [];
    for (const file of trackedSources()) {
      const absolute = path.join(ROOT, file);
      const info = await prettier.getFileInfo(absolute, { ignorePath });
      if (info.ignored || info.inferredParser === null) continue;
      const options = await prettier.resolveConfig(absolute);
      const source = fs.readFileSync(absolute, 'utf8');
      if (!(await prettier.check(source, { ...options, filepath: absolute }))) unformatted.push(file);
    }
    expect(unformatted, 'run `npm run format`').toEqual([]);
  }, 300_000); // prettier over ~700 files: seconds alone, a minute and more beside a loaded suite
});
