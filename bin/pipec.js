#!/usr/bin/env node
// The CLI entry. Runs dist/pipec.cjs — the compiled CLI as one file with a V8 code cache, written by
// `npm run build` (compiler/cli/bundle-cli.ts) — when it is there and not older than the compiled
// modules, for a start in about half the time; else the modules in dist/ (also with PIPEC_BUNDLE=0,
// for stack traces that point into them).
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/', import.meta.url);

async function loadMain() {
  const bundle = fileURLToPath(new URL('pipec.cjs', dist));
  const modules = fileURLToPath(new URL('compiler/cli/pipec.js', dist));
  if (process.env.PIPEC_BUNDLE !== '0' && existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(modules).mtimeMs) {
    const { runBundle } = await import('../dist/runtime/launch.js');
    return runBundle(bundle, `${bundle}.cache`, (specifier) => import(specifier)).exports.main;
  }
  return (await import('../dist/compiler/cli/pipec.js')).main;
}

loadMain()
  .then((main) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`pipec: internal error (this is a pipec bug): ${err && err.stack ? err.stack : err}`);
      process.exitCode = 70;
    },
  );
