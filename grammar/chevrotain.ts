/**
 * Chevrotain, loaded from the single-file bundle its package ships (`lib/chevrotain.mjs`).
 *
 * Why: the package entry (`lib/src/api.js`) imports about 640 lodash-es modules, one file each, and
 * loading them took ≈ 0.5 s of every `pipec` start — more than half of a `pipec check`. The bundle
 * is the same version built into one file and loads in ≈ 20 ms. It is not listed in the package's
 * "exports", so it is found beside the resolved entry; when a future version no longer ships it,
 * the package entry is used instead. Every grammar module imports Chevrotain values from here (one
 * copy, so token types and exceptions stay identical); types come from 'chevrotain' as usual.
 */
import { pathToFileURL } from 'node:url';
import { chevrotainSingleFile } from './chevrotain-file.js';

type Chevrotain = typeof import('chevrotain');

const bundle = chevrotainSingleFile(import.meta.url);
const chevrotain: Chevrotain = bundle
  ? ((await import(pathToFileURL(bundle).href)) as Chevrotain)
  : await import('chevrotain');

export const { createToken, CstParser, EOF, Lexer, generateCstDts } = chevrotain;
/** The classes as types too, as `import { Lexer } from 'chevrotain'` would give them. */
export type CstParser = import('chevrotain').CstParser;
export type Lexer = import('chevrotain').Lexer;
/** True when the bundle was found (a test keeps this from silently regressing to the slow entry). */
export const loadedFromBundle = bundle !== undefined;
