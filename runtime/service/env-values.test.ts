import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveEnvValue } from './env-values.js';

describe('env() values', () => {
  const ref = { $env: 'TOKEN_SIGNING_KEY' };
  const never = (name: string): void => {
    throw new Error(`${name} reported missing`);
  };

  it('reads the variable, else NAME_FILE (without its final line break), else the fallback', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-env-'));
    try {
      const file = path.join(dir, 'key.pem');
      fs.writeFileSync(file, '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n');
      expect(resolveEnvValue(ref, { TOKEN_SIGNING_KEY: 'direct', TOKEN_SIGNING_KEY_FILE: file }, never)).toBe('direct');
      expect(resolveEnvValue(ref, { TOKEN_SIGNING_KEY_FILE: file }, never)).toBe(
        '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----',
      );
      expect(resolveEnvValue({ ...ref, default: 'dev' }, {}, never)).toBe('dev');
      const missing: string[] = [];
      expect(resolveEnvValue(ref, {}, (name) => missing.push(name))).toBeNull();
      expect(missing).toEqual(['TOKEN_SIGNING_KEY']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a NAME_FILE that is not a small regular file, naming the variable only', () => {
    expect(() => resolveEnvValue(ref, { TOKEN_SIGNING_KEY_FILE: '/dev/zero' }, never)).toThrow(
      /^TOKEN_SIGNING_KEY_FILE: cannot read the file it names \(not a regular file\)$/,
    );
    expect(() => resolveEnvValue(ref, { TOKEN_SIGNING_KEY_FILE: '/nonexistent/key.pem' }, never)).toThrow(
      /^TOKEN_SIGNING_KEY_FILE: cannot read/,
    );
  });
});
