/**
 * Test support of `sftp`: its message-use scenario. That test (runtime/connectors/message-use.test.ts)
 * checks only that `run` never looks at its message, and has no SFTP server: the scenario's
 * connections hand out an SFTP channel whose one call, readdir, lists an empty folder. The
 * connector itself is tested against OpenSSH in sftp.test.ts.
 */
import type { MessageUseScenario } from '../test-support/message-use-scenario.js';
import { fakeContext } from '../../service/test-support/fake-context.js';
import type { Connections } from '../../types.js';
import type { SftpSession } from './session.js';

const emptyFolder = {
  sftp: { readdir: (_path: string, done: (err: undefined, list: never[]) => void) => done(undefined, []) },
  target: 'scenario@localhost:22',
} as unknown as SftpSession;

const connections: Connections = {
  get: <T>() => Promise.resolve(emptyFolder as T),
  drop: () => Promise.resolve(),
  report: () => undefined,
  guard: (_target, call) => call(),
};

/** A run of `sftp` that must not look at its message (runtime/connectors/message-use.test.ts). */
export const messageUseScenario: MessageUseScenario = () => {
  const { ctx } = fakeContext();
  return {
    params: {
      operation: 'list',
      path: 'in',
      account: 'partner',
      accountFields: {
        host: 'localhost',
        username: 'scenario',
        password: 'x',
        'host-key': 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      },
    },
    ctx: { ...ctx, services: { ...ctx.services, connections } },
  };
};
