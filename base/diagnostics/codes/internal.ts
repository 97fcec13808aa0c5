import type { CodeTable } from '../codes.js';

export const internalCodes = {
  PIPE9001: {
    title: 'Internal compiler error',
    severity: 'error',
    phase: 'internal',
    explain:
      'pipec itself failed while compiling. This is a pipec bug, not a mistake in your file: please report it with the file that triggers it. The message names the phase and the first lines of the stack.',
  },
  PIPE9002: {
    title: 'Cannot read file',
    severity: 'error',
    phase: 'internal',
    explain:
      'A file named on the command line (or found in a named folder) could not be read: it does not exist, is not readable, or is not a `.pipe` file.',
  },
} as const satisfies CodeTable;
