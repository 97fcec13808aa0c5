/**
 * The diagnostics of the command line's reading of its inputs (PIPE9002), prose here: an input
 * that is missing, unreadable or outside `--root`, or no .pipe file at all. Each points at the
 * file itself (offset 0), as there is no text to point into.
 */
import { diagnostic } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';

const atStartOf = (file: string) => ({ file, start: 0, end: 0 });

export function inputMissing(input: string): Diagnostic {
  return diagnostic('PIPE9002', {
    message: `cannot read \`${input}\`: no such file or folder`,
    span: atStartOf(input),
  });
}

/** `shown` is the file as the user sees it; `problem` what reading it said. */
export function inputUnreadable(file: string, shown: string, problem: string): Diagnostic {
  return diagnostic('PIPE9002', { message: `cannot read \`${shown}\`: ${problem}`, span: atStartOf(file) });
}

export function noPipeFiles(inputs: readonly string[]): Diagnostic {
  return diagnostic('PIPE9002', {
    message: `no .pipe files found in ${inputs.map((i) => `\`${i}\``).join(', ')}`,
    span: atStartOf(inputs[0] ?? '.'),
  });
}

export function inputOutsideRoot(file: string, shown: string, root: string): Diagnostic {
  return diagnostic('PIPE9002', {
    message: `\`${shown}\` is outside the project root \`${root}\``,
    span: atStartOf(file),
    hint: 'name a --root that holds every input, or leave --root out',
  });
}
