/**
 * Where Chevrotain's single-file build is: `…/chevrotain/lib/chevrotain.mjs`, next to the package
 * entry `…/chevrotain/lib/src/api.js` (see chevrotain.ts for why). Shared by the grammar and by the
 * CLI bundler (compiler/cli/bundle-cli.ts); node: built-ins only, so asking loads nothing.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The single-file build as resolved from `from` (a file URL or path); undefined when the package no longer ships it. */
export function chevrotainSingleFile(from: string): string | undefined {
  const entry = createRequire(from).resolve('chevrotain');
  const single = path.join(path.dirname(entry), '..', 'chevrotain.mjs');
  return existsSync(single) ? single : undefined;
}
