/**
 * Diagnostic codes are a closed type: the TypeScript compiler rejects a code that is not in a
 * table of base/diagnostics/codes/, on every path a diagnostic is raised by (the catalogue's
 * `diagnostic`, the `api.diagnostic` of a connector's compile-time part, a `Diagnostic` value).
 * The probe below is type-checked as if it were a file of the project; each `@ts-expect-error`
 * must be used, so the test fails if the code type ever widens to `string` (for example when a
 * codes table is annotated `: CodeTable` instead of `as const satisfies CodeTable`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

const PROBE = `
import { diagnostic, isDiagnosticCode, type DiagnosticCode } from '../../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../../base/diagnostics/diagnostic.js';
import type { CompileApi } from '../../../compiler/connectors/hook-api.js';
import type { Span } from '../../../base/source/span.js';

declare const span: Span;
declare const api: CompileApi;
declare const text: string;

export const known: Diagnostic = diagnostic('PIPE3001', { message: 'm', span });
export const fromApi: Diagnostic = api.diagnostic('PIPE6001', { message: 'm', span });
// @ts-expect-error PIPE0000 is in no codes table
export const unknown = diagnostic('PIPE0000', { message: 'm', span });
// @ts-expect-error a connector's compile-time part cannot raise an uncatalogued code either
export const unknownFromApi = api.diagnostic('PIPE3999x', { message: 'm', span });
// @ts-expect-error nor may a diagnostic value carry one
export const value: Pick<Diagnostic, 'code'> = { code: 'PIPE1' };
// @ts-expect-error a string read at run time must be checked first
export const unchecked: DiagnosticCode = text;
export const checked: DiagnosticCode | undefined = isDiagnosticCode(text) ? text : undefined;
`;

/** The project's own `tsc`, with the project's options, over the probe alone: its error lines. */
function typeErrors(): string[] {
  fs.mkdirSync(path.join(root, 'test', '.tmp'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, 'test', '.tmp', 'codes-type-'));
  try {
    fs.writeFileSync(path.join(dir, 'probe.ts'), PROBE);
    const config = {
      extends: '../../../tsconfig.json',
      compilerOptions: { noEmit: true },
      files: ['probe.ts'],
      include: [],
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
    const run = spawnSync(tsc, ['-p', path.join(dir, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8' });
    if (run.error) throw run.error;
    return `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.trim() !== '');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('diagnostic codes type', () => {
  it('rejects an unknown code and accepts a catalogued one (every @ts-expect-error is used)', () => {
    expect(typeErrors()).toEqual([]);
  }, 60_000);
});
