import { compileForTest, renderForGolden } from './test/harness/compile-case.js';
const base = 'test/cases';
for (const f of ['unterminated-string.pipe', 'number-plus-string.pipe']) {
  const r = compileForTest([`${base}/braces/${f}`], { base });
  console.log('=====', f); console.log(renderForGolden(r, base));
}
