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
  /** True once `path` was read (and until `remove`): there is something to remove. */
  readonly created: boolean;
  /** Removes the folder and everything in it (no-op when it was never created). */
  remove(): Promise<void>;
}

const SAFE_ID = /^[A-Za-z0-9-]{1,100}$/;

/** A folder nothing creates until `path` is read (a class: one is made per execution). */
class LazyWorkDir implements WorkDir {
  private folder: string | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly executionId: ExecutionIdSource,
  ) {}

  get created(): boolean {
    return this.folder !== undefined;
  }

  get path(): string {
    if (this.folder === undefined) {
      // Checked here, where the id becomes a path, not per execution: most never create the folder.
      const id = typeof this.executionId === 'string' ? this.executionId : this.executionId.value;
      if (!SAFE_ID.test(id)) throw new Error(`unsafe execution id for a work folder: ${id}`);
      const folder = join(resolve(this.dataDir), 'tmp', id);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      this.folder = folder;
    }
    return this.folder;
  }

  async remove(): Promise<void> {
    if (this.folder === undefined) return;
    const folder = this.folder;
    this.folder = undefined;
    await rm(folder, { recursive: true, force: true });
  }
}

/** An execution id, or where to get it when it is made on first use (execution.ts). */
export type ExecutionIdSource = string | { readonly value: string };

export function createWorkDir(dataDir: string, executionId: ExecutionIdSource): WorkDir {
  return new LazyWorkDir(dataDir, executionId);
}
