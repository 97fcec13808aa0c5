import { compileForTest, renderForGolden } from './test/harness/compile-case.js';
import fs from 'node:fs';
const base = 'test/cases';
for (const f of fs.readdirSync('test/cases/braces').filter((f) => f.endsWith('.pipe'))) {
  const r = compileForTest([`${base}/braces/${f}`], { base });
  console.log('=====', f); console.log(renderForGolden(r, base));
}
