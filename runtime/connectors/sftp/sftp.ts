/**
 * The `sftp` connector: list, get, put, move and delete on an SSH server (schema.json).
 *
 * Files never pass through memory whole: `get` streams the remote file into the execution's work
 * folder and outputs a reference to it, the object the HTTP File trigger lists in
 * `message.files[]` (runtime/work-files.ts); `put` streams such a file to the server. A put
 * writes to a temporary name beside the target and renames it when complete, so the other side
 * never sees half a file; a get larger than `max-size` is cut off and removed.
 *
 * In: params with every `{{ }}` evaluated, the ssh account's fields in `accountFields`.
 * Out: list { path, entries }, get the file object, put { path, size }, move { from, to },
 * delete { path, deleted }. Failures throw PipeError with the kinds schema.json lists.
 */
import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import type { FileEntryWithStats, SFTPWrapper, Stats } from 'ssh2';
import { PipeError } from '../../errors.js';
import type { ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';
import { contentTypeOf, newWorkFilePath, resolveWorkFile } from '../../work-files.js';
import { connectionKey, sessionOf, sshAccountOf, type SftpSession, type SshAccount } from './session.js';

export interface SftpParams {
  operation: string;
  account?: string;
  accountFields?: Readonly<Record<string, Json>>;
  path?: string;
  to?: string;
  file?: Json;
  overwrite?: boolean;
  'max-size'?: number;
  'connect-timeout'?: number;
}

const DEFAULT_MAX_SIZE = 1024 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT = 10_000;
const MAX_LIST_ENTRIES = 100_000;

/** Failures that say the server is unwell (they count against its circuit breaker). */
const DEPENDENCY_FAULTS = new Set(['CONNECTION_REFUSED', 'TIMEOUT', 'UNAVAILABLE']);

/** SFTP status codes (draft-ietf-secsh-filexfer-02) → the step's kinds. */
const STATUS_NO_SUCH_FILE = 2;
const STATUS_PERMISSION_DENIED = 3;

function invalid(message: string): PipeError {
  return new PipeError(`sftp: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
}

/** An error of the SFTP channel as the step's PipeError. */
function operationError(err: unknown, what: string): PipeError {
  if (err instanceof PipeError) return err;
  const e = err as (Error & { code?: number | string }) | undefined;
  const message = e instanceof Error ? e.message : String(err);
  if (e?.code === STATUS_NO_SUCH_FILE) {
    return new PipeError(`sftp: ${what}: no such file or directory`, { code: 404, kind: 'NOT_FOUND' });
  }
  if (e?.code === STATUS_PERMISSION_DENIED) {
    return new PipeError(`sftp: ${what}: permission denied`, { code: 403, kind: 'PERMISSION_DENIED' });
  }
  if (typeof e?.code === 'number') {
    return new PipeError(`sftp: ${what} failed: ${message}`, { code: 502, kind: 'SFTP_ERROR' });
  }
  // No SFTP status: the channel or the connection went away (No response from server, ECONNRESET, …).
  return new PipeError(`sftp: ${what}: the connection broke (${message})`, { code: 503, kind: 'UNAVAILABLE' });
}

function call<T>(what: string, start: (done: (err: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    start((err, value) => (err ? reject(operationError(err, what)) : resolve(value as T)));
  });
}

const statOf = (sftp: SFTPWrapper, path: string): Promise<Stats> =>
  call(`stat ${path}`, (done) => sftp.stat(path, done));

/** Whether a remote path exists (NOT_FOUND → false; other failures throw). */
async function exists(sftp: SFTPWrapper, path: string): Promise<boolean> {
  try {
    await statOf(sftp, path);
    return true;
  } catch (err) {
    if (err instanceof PipeError && err.kind === 'NOT_FOUND') return false;
    throw err;
  }
}

function typeOf(stats: Stats): string {
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'file';
  if (stats.isSymbolicLink()) return 'symlink';
  return 'other';
}

async function list(sftp: SFTPWrapper, path: string): Promise<JsonObject> {
  const entries = await call<FileEntryWithStats[]>(`list ${path}`, (done) => sftp.readdir(path, done));
  if (entries.length > MAX_LIST_ENTRIES) {
    throw new PipeError(`sftp: ${path} holds more than ${MAX_LIST_ENTRIES} entries`, { code: 502, kind: 'SFTP_ERROR' });
  }
  const out = entries
    .filter((e) => e.filename !== '.' && e.filename !== '..')
    .sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0))
    .map((e): JsonObject => ({
      name: e.filename,
      type: typeOf(e.attrs),
      size: e.attrs.size,
      modifiedAt: new Date(e.attrs.mtime * 1000).toISOString(),
    }));
  return { path, entries: out };
}

function tooLarge(path: string, limit: number): PipeError {
  return new PipeError(`sftp: ${path} is larger than max-size (${limit} bytes)`, { code: 413, kind: 'FILE_TOO_LARGE' });
}

/**
 * Transfers in parallel requests (ssh2's fastGet/fastPut: `CONCURRENCY` reads or writes of `CHUNK`
 * bytes in flight, straight between the file on disk and the channel), so at most about 2 MB of a
 * file is in memory at any time, and a round trip per chunk does not bound the throughput.
 */
const TRANSFER = { concurrency: 32, chunkSize: 64 * 1024 } as const;

async function get(sftp: SFTPWrapper, path: string, maxSize: number, ctx: ExecutionContext): Promise<JsonObject> {
  const stats = await statOf(sftp, path);
  if (!stats.isFile()) throw new PipeError(`sftp: get ${path}: not a file`, { code: 400, kind: 'INVALID_PARAMETER' });
  if (stats.size > maxSize) throw tooLarge(path, maxSize);
  const originalFileName = posix.basename(path);
  const local = newWorkFilePath(ctx.workDir, originalFileName);
  let size: number;
  try {
    await call(`get ${path}`, (done) => sftp.fastGet(path, local.path, { ...TRANSFER, mode: 0o600 }, done));
    // fastGet reads the size the server reported when it opened the file; one that grew since is cut there.
    size = (await stat(local.path)).size;
    if (size > maxSize) throw tooLarge(path, maxSize);
  } catch (err) {
    await rm(local.path, { force: true });
    throw transferError(err, `get ${path}`, ctx);
  }
  return {
    fileName: local.fileName,
    originalFileName,
    contentType: contentTypeOf(originalFileName),
    size,
    path: local.path,
    remotePath: path,
  };
}

function transferError(err: unknown, what: string, ctx: ExecutionContext): PipeError {
  if (err instanceof PipeError && !ctx.signal.aborted) return err;
  if (ctx.signal.aborted) return aborted(what, err);
  return operationError(err, what);
}

async function put(
  sftp: SFTPWrapper,
  path: string,
  file: Json | undefined,
  overwrite: boolean,
  ctx: ExecutionContext,
): Promise<JsonObject> {
  const local = await resolveWorkFile(file, ctx.workDir, 'sftp: file');
  if (!overwrite && (await exists(sftp, path))) {
    throw new PipeError(`sftp: put ${path}: the file exists (overwrite is off)`, { code: 409, kind: 'ALREADY_EXISTS' });
  }
  // Written beside the target under a temporary name, renamed when complete.
  const partial = posix.join(posix.dirname(path), `.${posix.basename(path)}.${randomUUID().slice(0, 8)}.part`);
  try {
    await call(`put ${path}`, (done) => sftp.fastPut(local.path, partial, { ...TRANSFER, mode: 0o644 }, done));
    await rename(sftp, partial, path, overwrite);
  } catch (err) {
    await call(`remove ${partial}`, (done) => sftp.unlink(partial, done)).catch(() => undefined);
    throw err instanceof PipeError ? err : transferError(err, `put ${path}`, ctx);
  }
  return { path, size: local.size };
}

/** Renames; `replace` replaces an existing target atomically (OpenSSH's posix-rename), else fails 409. */
async function rename(sftp: SFTPWrapper, from: string, to: string, replace: boolean): Promise<void> {
  if (replace) {
    await call(`move ${from} to ${to}`, (done) => sftp.ext_openssh_rename(from, to, done));
    return;
  }
  if (await exists(sftp, to)) {
    throw new PipeError(`sftp: move to ${to}: the file exists (overwrite is off)`, {
      code: 409,
      kind: 'ALREADY_EXISTS',
    });
  }
  await call(`move ${from} to ${to}`, (done) => sftp.rename(from, to, done));
}

async function perform(params: SftpParams, session: SftpSession, ctx: ExecutionContext): Promise<JsonObject> {
  const { sftp } = session;
  const path = params.path as string;
  switch (params.operation) {
    case 'list':
      return list(sftp, path);
    case 'get':
      return get(sftp, path, params['max-size'] ?? DEFAULT_MAX_SIZE, ctx);
    case 'put':
      if (params.file === undefined || params.file === null) {
        throw invalid('put needs `file` (a file of the work folder)');
      }
      return put(sftp, path, params.file, params.overwrite ?? true, ctx);
    case 'move': {
      const to = params.to;
      if (typeof to !== 'string' || to.length === 0) throw invalid('move needs `to` (the new path)');
      await rename(sftp, path, to, params.overwrite ?? false);
      return { from: path, to };
    }
    case 'delete':
      await call(`delete ${path}`, (done) => sftp.unlink(path, done));
      return { path, deleted: true };
    default:
      throw invalid(`unknown operation \`${String(params.operation)}\``);
  }
}

function aborted(what: string, cause?: unknown): PipeError {
  return new PipeError(`sftp: ${what} was aborted (execution timeout or shutdown)`, {
    code: 504,
    kind: 'TIMEOUT',
    cause,
  });
}

/** Waits for `work`, or fails 504 TIMEOUT as soon as the execution is aborted. */
function untilAborted<T>(work: Promise<T>, ctx: ExecutionContext, what: string): Promise<T> {
  if (ctx.signal.aborted) return Promise.reject(aborted(what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(aborted(what));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => ctx.signal.removeEventListener('abort', onAbort));
  });
}

/**
 * @example
 *   await run({ operation: 'get', account: 'partner',
 *               accountFields: { host, username, password, 'host-key': 'SHA256:…' },
 *               path: 'in/orders.csv' }, message, ctx)
 *   // → { fileName: '3f…e1.csv', originalFileName: 'orders.csv', contentType: 'text/csv', size: 1234,
 *   //     path: '<work folder>/3f…e1.csv', remotePath: 'in/orders.csv' }
 */
export const run: ConnectorRun<SftpParams> = async (params, _message, ctx) => {
  if (typeof params.path !== 'string' || params.path.length === 0) throw invalid('`path` is empty');
  const account: SshAccount = sshAccountOf(params.account, params.accountFields);
  const what = `${params.operation} ${params.path}`;
  const connectTimeout = params['connect-timeout'] ?? DEFAULT_CONNECT_TIMEOUT;
  const connections = ctx.services.connections;
  try {
    // Through the account's circuit breaker: a server that keeps refusing or timing out is not
    // called while its circuit is open (503 CIRCUIT_OPEN); its answers (404, 403, …) do not count.
    const output = await connections.guard(
      connectionKey(account),
      async () => {
        const session = await untilAborted(sessionOf(account, connections, connectTimeout), ctx, what);
        const done = await untilAborted(perform(params, session, ctx), ctx, what);
        ctx.log.debug({ target: session.target, operation: params.operation }, 'sftp: done');
        return done;
      },
      { failed: (err) => err instanceof PipeError && DEPENDENCY_FAULTS.has(err.kind) },
    );
    return output;
  } catch (err) {
    const failure = err instanceof PipeError ? err : operationError(err, what);
    // A broken connection is not reused: the next step opens a new one.
    if (failure.kind === 'UNAVAILABLE') await ctx.services.connections.drop(connectionKey(account));
    throw failure;
  }
};
