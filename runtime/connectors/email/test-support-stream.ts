/**
 * Run by email.test.ts as a separate process (so its memory is the connector's, not the test
 * runner's): makes a 100 MB file in a work folder and sends it as an attachment with the
 * connector, after a first small message that loads the mail and TLS stacks. Prints
 * { baselineMb, peakMb, accepted } as its last line: the peak resident memory before and after.
 * SMTP_FIELDS holds the account's fields (JSON).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConnectionRegistry } from '../../service/connections.js';
import { createLogger } from '../../service/logging.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { JsonObject } from '../../types.js';
import { run, type EmailParams } from './email.js';

const SIZE = 100 * 1024 * 1024;
const fields = JSON.parse(process.env['SMTP_FIELDS'] ?? '{}') as Record<string, string>;
const workDir = mkdtempSync(join(tmpdir(), 'email-100mb-'));
const connections = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
const base = fakeContext({ workDir }).ctx;
const ctx = { ...base, services: { ...base.services, connections } };
const send = (params: Partial<EmailParams>): Promise<JsonObject> =>
  run(
    {
      account: 'mail',
      accountFields: fields,
      from: 'big@example.com',
      to: 'ops@example.com',
      text: 'attached',
      ...params,
    } as EmailParams,
    null,
    ctx,
  ) as Promise<JsonObject>;
const peakMb = (): number => process.resourceUsage().maxRSS / 1024;

try {
  const block = randomBytes(1024 * 1024);
  const big = join(workDir, 'big.bin');
  const blocks = function* (): Generator<Buffer> {
    for (let i = 0; i < SIZE / block.length; i++) yield block;
  };
  await pipeline(Readable.from(blocks()), createWriteStream(big));
  writeFileSync(join(workDir, 'small.txt'), 'small');
  await send({ subject: 'warm-up', attachments: join(workDir, 'small.txt') });
  const baselineMb = peakMb();
  const out = await send({ subject: '100 MB', attachments: big });
  console.log(JSON.stringify({ baselineMb, peakMb: peakMb(), accepted: out['accepted'] }));
} finally {
  await connections.closeAll();
  rmSync(workDir, { recursive: true, force: true });
}
