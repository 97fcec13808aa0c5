/**
 * RE2 (re2-wasm): linear-time regular expressions for every user-supplied pattern. Its WebAssembly
 * module compiles when loaded (~45 ms), so it is loaded on the first pattern, not at service start.
 */
import { createRequire } from 'node:module';
import type { RE2 as RE2Class } from 're2-wasm';

let loaded: typeof RE2Class | undefined;

/** The RE2 class (loaded once, synchronously, on first use). */
export function re2(): typeof RE2Class {
  loaded ??= (createRequire(import.meta.url)('re2-wasm') as { RE2: typeof RE2Class }).RE2;
  return loaded;
}
