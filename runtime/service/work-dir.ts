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

export function createWorkDir(dataDir: string, executionId: string): WorkDir {
  // Execution ids are generated UUIDs, but the check keeps the path inside dataDir regardless.
  if (!SAFE_ID.test(executionId)) throw new Error(`unsafe execution id for a work folder: ${executionId}`);
  const folder = join(resolve(dataDir), 'tmp', executionId);
  let created = false;
  return {
    get path(): string {
      if (!created) {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        created = true;
      }
      return folder;
    },
    async remove(): Promise<void> {
      if (!created) return;
      await rm(folder, { recursive: true, force: true });
      created = false;
    },
  };
}
