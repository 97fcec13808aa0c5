import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { env as stepEnv } from '../steps.js';
import { resolveEnvValue, SECRET_VARIABLES, withSecretFiles } from './env-values.js';

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

  it('fills each secret the runtime reads from NAME_FILE when NAME is unset, never over NAME', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-env-'));
    try {
      const file = path.join(dir, 'store-url');
      fs.writeFileSync(file, 'postgres://app:s3cret@db:5432/app\n');
      for (const name of SECRET_VARIABLES) {
        const given = { [`${name}_FILE`]: file, OTHER: 'x' };
        expect(withSecretFiles(given)[name], name).toBe('postgres://app:s3cret@db:5432/app');
        expect(given, 'the given environment is left as it is').not.toHaveProperty(name);
        expect(withSecretFiles({ [name]: 'direct', [`${name}_FILE`]: file })[name]).toBe('direct');
      }
      expect(SECRET_VARIABLES).toEqual(
        expect.arrayContaining(['PIPEC_STORE', 'PIPEC_BROKER', 'PIPEC_ADMIN_API_KEY', 'PIPEC_NATS_PASSWORD']),
      );
      // Only the runtime's own secrets: an unrelated *_FILE (SSL_CERT_FILE) is not read.
      expect(withSecretFiles({ SSL_CERT_FILE: file })).not.toHaveProperty('SSL_CERT');
      expect(() => withSecretFiles({ PIPEC_STORE_FILE: '/nonexistent' })).toThrow(/^PIPEC_STORE_FILE: cannot read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('env("NAME") at a step reads NAME_FILE when NAME is unset', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipec-env-'));
    const name = `PIPEC_TEST_STEP_SECRET_${process.pid}`;
    try {
      fs.writeFileSync(path.join(dir, 'secret'), 'from-file\n');
      process.env[`${name}_FILE`] = path.join(dir, 'secret');
      expect(stepEnv(name)).toBe('from-file');
      expect(stepEnv(`${name}_ABSENT`, 'fallback')).toBe('fallback');
    } finally {
      delete process.env[`${name}_FILE`];
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
