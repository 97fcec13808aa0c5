/**
 * Run by sftp.test.ts as a separate process (so its memory is the connector's, not the test
 * runner's): makes a 100 MB file in a work folder, puts it on the SFTP server and gets it back
 * with the connector, and prints { baselineMb, peakMb, size, same } as its last line: the peak
 * resident memory before and after the transfers, the size fetched, and whether the bytes match.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConnectionRegistry } from '../../service/connections.js';
import { createLogger } from '../../service/logging.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { JsonObject } from '../../types.js';
import { run, type SftpParams } from './sftp.js';

const SIZE = 100 * 1024 * 1024;
const fields = JSON.parse(process.env['SFTP_FIELDS'] ?? '{}') as Record<string, string>;
const folder = process.env['SFTP_FOLDER'] ?? '.';
const workDir = mkdtempSync(join(tmpdir(), 'sftp-100mb-'));
const connections = new ConnectionRegistry(createLogger({ level: 'silent', service: 'test' }));
const base = fakeContext({ workDir }).ctx;
const ctx = { ...base, services: { ...base.services, connections } };
const sftp = (params: Partial<SftpParams> & { operation: string }): Promise<JsonObject> =>
  run({ account: 'partner', accountFields: fields, ...params } as SftpParams, null, ctx) as Promise<JsonObject>;
const peakMb = (): number => process.resourceUsage().maxRSS / 1024;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

try {
  const block = randomBytes(1024 * 1024);
  const source = join(workDir, 'source.bin');
  const blocks = function* (): Generator<Buffer> {
    for (let i = 0; i < SIZE / block.length; i++) yield block;
  };
  await pipeline(Readable.from(blocks()), createWriteStream(source));
  const expected = await sha256(source);
  await sftp({ operation: 'list', path: folder });
  const baselineMb = peakMb();
  await sftp({ operation: 'put', path: `${folder}/big.bin`, file: source });
  rmSync(source);
  const got = await sftp({ operation: 'get', path: `${folder}/big.bin` });
  const same = (await sha256(String(got['path']))) === expected;
  console.log(JSON.stringify({ baselineMb, peakMb: peakMb(), size: got['size'], same }));
} finally {
  await connections.closeAll();
  rmSync(workDir, { recursive: true, force: true });
}
