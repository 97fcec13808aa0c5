/**
 * The per-execution scratch folder `<dataDir>/tmp/<executionId>`: created on first use (most
 * executions never touch files) and removed when the execution ends.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface WorkDir {
  /** The absolute path; reading it creates the folder. */
  readonly path: string;
  /** Removes the folder and everything in it (no-op when it was never created). */
  remove(): Promise<void>;
}

const SAFE_ID = /^[A-Za-z0-9-]{1,100}$/;

/** Nothing touches the disk until `path` is read. */
export function createWorkDir(dataDir: string, executionId: string): WorkDir {
  if (!SAFE_ID.test(executionId)) throw new Error(`unsafe execution id for a work folder: ${executionId}`);
  let folder: string | undefined;
  return {
    get path(): string {
      if (folder === undefined) {
        const created = join(resolve(dataDir), 'tmp', executionId);
        mkdirSync(created, { recursive: true, mode: 0o700 });
        folder = created;
      }
      return folder;
    },
    async remove(): Promise<void> {
      if (folder === undefined) return;
      const created = folder;
      folder = undefined;
      await rm(created, { recursive: true, force: true });
    },
  };
}
