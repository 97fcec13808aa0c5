/**
 * Golden files: compare actual text with the expected file, or rewrite it when UPDATE_GOLDEN=1.
 * Updating is refused under CI=true, so CI can never bless its own output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

export function updating(): boolean {
  const wanted = process.env['UPDATE_GOLDEN'] === '1';
  if (wanted && process.env['CI'] === 'true')
    throw new Error('UPDATE_GOLDEN=1 is refused when CI=true: goldens are updated by a person, never by CI');
  return wanted;
}

export function expectGolden(file: string, actual: string): void {
  if (updating()) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  if (!fs.existsSync(file))
    throw new Error(`missing golden file ${file}; run \`npm run test:update\` and review the diff`);
  expect(actual, `golden ${path.relative(process.cwd(), file)} (update with npm run test:update)`).toBe(
    fs.readFileSync(file, 'utf8'),
  );
}

/** Every file under dir (recursively) ending with suffix, sorted. */
export function findFiles(dir: string, suffix: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findFiles(full, suffix));
    else if (entry.name.endsWith(suffix)) out.push(full);
  }
  return out.sort();
}
