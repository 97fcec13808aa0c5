/**
 * A 100 MB CSV is read as a stream: `csv parse` with a batch pipeline, in a child process whose V8
 * heap is far smaller than the file (a parser holding the file or its rows would run out of it),
 * keeps its resident set well below the file's size. Memory, not time, is asserted.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'csv-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MB = 1024 * 1024;

/** Writes `bytes` or a little more of CSV: a header, then rows of about 100 bytes, one invalid row in 100 000. */
async function writeCsv(path: string, bytes: number): Promise<number> {
  const out = createWriteStream(path);
  const note = 'x'.repeat(60);
  let written = 0;
  let rows = 0;
  const write = (chunk: string): Promise<void> | void => {
    written += chunk.length;
    if (!out.write(chunk)) return new Promise((resolve) => out.once('drain', () => resolve()));
  };
  await write('id,name,amount,note\n');
  while (written < bytes) {
    let chunk = '';
    for (let i = 0; i < 1000; i++, rows++)
      chunk += `${rows % 100_000 === 99_999 ? 'bad' : rows},"name ${rows}, Jr.",${rows % 977}.25,${note}\n`;
    await write(chunk);
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return rows;
}

it('parses a 100 MB CSV in bounded memory', async () => {
  const path = join(dir, 'big.csv');
  const rows = await writeCsv(path, 100 * MB);
  expect(statSync(path).size).toBeGreaterThanOrEqual(100 * MB);
  const child = fileURLToPath(new URL('test-support-large-input.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--max-old-space-size=48', '--import', 'tsx', child, path],
    {
      maxBuffer: MB,
      timeout: 600_000,
    },
  );
  const result = JSON.parse(stdout) as { rowCount: number; rejectedCount: number; rowsSeen: number; peakRss: number };
  const invalid = Math.floor(rows / 100_000);
  expect(result.rejectedCount).toBe(invalid);
  expect(result.rowCount).toBe(rows - invalid);
  expect(result.rowsSeen).toBe(result.rowCount);
  // Holding the file alone would take node, tsx and the modules (some 70 MB) plus 100 MB.
  expect(result.peakRss).toBeLessThan(160 * MB);
}, 600_000);
