import { describe, expect, it } from 'vitest';
import { packageName, serviceLockfile, type Lockfile } from './service-packages.js';

const pipecLock: Lockfile = {
  name: 'pipec',
  lockfileVersion: 3,
  packages: {
    '': {
      name: 'pipec',
      version: '0.1.0',
      dependencies: { a: '^1.0.0', openai: '^6.0.0' },
      devDependencies: { vitest: '^4.0.0' },
    },
    'node_modules/a': {
      version: '1.2.0',
      integrity: 'sha512-a',
      dependencies: { b: '^2.0.0', c: '^1.0.0' },
      optionalDependencies: { 'fsevents-like': '^1.0.0' },
    },
    // a needs b@2, nested under it; the top-level b is another version for someone else.
    'node_modules/a/node_modules/b': { version: '2.0.1', integrity: 'sha512-b2' },
    'node_modules/b': { version: '1.0.0', integrity: 'sha512-b1', dev: true },
    'node_modules/c': { version: '1.0.0', integrity: 'sha512-c', peerDependencies: { d: '*' }, devOptional: true },
    'node_modules/d': { version: '3.0.0', integrity: 'sha512-d' },
    'node_modules/openai': { version: '6.49.0', integrity: 'sha512-o' },
    'node_modules/vitest': { version: '4.1.0', integrity: 'sha512-v', dev: true },
  },
};

describe('the lockfile of a built service', () => {
  it("holds what its dependencies reach, at pipec's places and versions, and nothing else", () => {
    const lock = serviceLockfile(pipecLock, 'svc', '0.0.0', { a: '^1.0.0' });
    expect(Object.keys(lock.packages).sort()).toEqual([
      '',
      'node_modules/a',
      'node_modules/a/node_modules/b',
      'node_modules/c',
      'node_modules/d',
    ]);
    expect(lock.packages['']).toEqual({ name: 'svc', version: '0.0.0', dependencies: { a: '^1.0.0' } });
    expect(lock.packages['node_modules/a/node_modules/b']).toEqual({ version: '2.0.1', integrity: 'sha512-b2' });
    // pipec's dev marks are not this tree's.
    expect(lock.packages['node_modules/c']).toEqual({
      version: '1.0.0',
      integrity: 'sha512-c',
      peerDependencies: { d: '*' },
    });
    expect(lock).toMatchObject({ lockfileVersion: 3, requires: true });
  });

  it("refuses a dependency pipec's lockfile does not have", () => {
    expect(() => serviceLockfile(pipecLock, 'svc', '0.0.0', { left: '^1.0.0' })).toThrow(
      /left is not in pipec's package-lock.json/,
    );
  });

  it('names packages by their import specifiers', () => {
    expect(packageName('@nats-io/kv/lib/x.js')).toBe('@nats-io/kv');
    expect(packageName('hono/cors')).toBe('hono');
    expect(packageName('node:fs')).toBeNull();
    expect(packageName('fs')).toBeNull();
    expect(packageName('./runtime/index.js')).toBeNull();
  });
});
