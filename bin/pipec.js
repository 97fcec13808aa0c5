#!/usr/bin/env node
// The CLI entry: runs the compiled CLI from dist/ (built by `npm install` through `prepare`).
import { main } from '../dist/compiler/cli/pipec.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`pipec: internal error (this is a pipec bug): ${err && err.stack ? err.stack : err}`);
    process.exitCode = 70;
  },
);
