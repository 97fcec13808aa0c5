/**
 * A large XML document is read record by record as a stream: `xml parse` with `record` and a
 * batch pipeline, in a child process whose V8 heap is smaller than what the parsed document would
 * take, keeps its resident set bounded. 30 MB (150 000 records) rather than csv's 100 MB: each
 * record is parsed on its own, which costs about ten times csv's time per byte. Memory, not time,
 * is asserted.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'xml-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MB = 1024 * 1024;

/** Writes `bytes` or a little more of XML: items of about 200 bytes, one invalid in 50 000. */
async function writeXml(path: string, bytes: number): Promise<number> {
  const out = createWriteStream(path);
  const note = 'y'.repeat(120);
  let written = 0;
  let items = 0;
  const write = (chunk: string): Promise<void> | void => {
    written += chunk.length;
    if (!out.write(chunk)) return new Promise((resolve) => out.once('drain', () => resolve()));
  };
  await write('<?xml version="1.0" encoding="UTF-8"?>\n<catalog xmlns="urn:catalog">\n');
  while (written < bytes) {
    let chunk = '';
    for (let i = 0; i < 1000; i++, items++) {
      const price = items % 50_000 === 49_999 ? 'free' : `${items % 977}.5`;
      chunk += `  <item id="${items}"><name>Item &amp; ${items}</name><price>${price}</price><note>${note}</note></item>\n`;
    }
    await write(chunk);
  }
  await write('</catalog>\n');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return items;
}

it('parses a 30 MB XML document record by record in bounded memory', async () => {
  const path = join(dir, 'big.xml');
  const items = await writeXml(path, 30 * MB);
  expect(statSync(path).size).toBeGreaterThanOrEqual(30 * MB);
  const child = fileURLToPath(new URL('test-support-large-input.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--max-old-space-size=48', '--import', 'tsx', child, path],
    {
      maxBuffer: MB,
      timeout: 900_000,
    },
  );
  const result = JSON.parse(stdout) as {
    recordCount: number;
    rejectedCount: number;
    recordsSeen: number;
    peakRss: number;
  };
  const invalid = Math.floor(items / 50_000);
  expect(result.rejectedCount).toBe(invalid);
  expect(result.recordCount).toBe(items - invalid);
  expect(result.recordsSeen).toBe(result.recordCount);
  // Node, tsx and the modules take some 70 MB; the heap limit above is what the parsed document would overrun.
  expect(result.peakRss).toBeLessThan(160 * MB);
}, 900_000);
