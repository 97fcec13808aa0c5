/**
 * RE2 (re2js, a pure JavaScript port of RE2): linear-time regular expressions for every pattern a
 * request can reach. Pure JavaScript, so patterns and inputs live on the ordinary heap: no fixed
 * WebAssembly memory to exhaust (re2-wasm, used before, aborted for good after some thousands of
 * distinct patterns or one input of a few MB) and nothing to download or build at install. The
 * module takes ≈ 15 ms to load, so it is loaded on the first pattern, not at service start.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

export type Re2Pattern = RE2JS;

let engine: typeof RE2JS | undefined;

/** The RE2JS class (loaded once, synchronously, on first use). */
export function re2(): typeof RE2JS {
  engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return engine;
}

/** Compiles RE2 syntax (flags as a leading `(?ims)` group); throws RE2's syntax error. */
export function compileRe2(source: string): Re2Pattern {
  return re2().compile(source);
}

/** RE2's error text without its `error parsing regexp:` prefix. */
export function re2ErrorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^error parsing regexp:\s*/, '');
}
