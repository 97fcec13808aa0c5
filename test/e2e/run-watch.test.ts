/**
 * `pipec run --watch`: builds and serves, then rebuilds and restarts when the file changes; a
 * broken edit keeps the previous version serving.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pipecRun, pollUntil } from './pipec-run.js';
import { tempDir } from './service-process.js';

const source = (greeting: string) =>
  `pipeline hi {\n  trigger http { method: GET, path: "/hi" }\n  respond 200 { greeting: "${greeting}" }\n}\n`;

describe('pipec run --watch', () => {
  it('serves, rebuilds on change, and keeps serving through a broken edit', async () => {
    const dir = tempDir('watch');
    const file = path.join(dir, 'hi.pipe');
    fs.writeFileSync(file, source('one'));
    const run = pipecRun([file, '--watch', '--out', path.join(dir, 'out')], { PIPEC_DATA_DIR: path.join(dir, 'data') });
    const greeting = async (url: string): Promise<string> =>
      ((await (await fetch(`${url}/hi`)).json()) as { greeting: string }).greeting;
    try {
      expect(await greeting(await run.started())).toBe('one');
      // Each restart listens on a port of its own (--port 0): wait for the next start's line.
      const before = run.output().length;
      fs.writeFileSync(file, source('two'));
      expect(await greeting(await run.started(before))).toBe('two');
      fs.writeFileSync(file, 'pipeline hi {\n  trigger htp { }\n}\n');
      await pollUntil(
        'the failed rebuild reported',
        async () => run.output(),
        (o) => o.includes('previous version keeps running'),
        60_000,
      );
      expect(await greeting(run.url() as string)).toBe('two');
    } finally {
      await run.stop();
    }
  }, 240_000);
});
