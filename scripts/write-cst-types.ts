import fs from 'node:fs';
import path from 'node:path';
import { cstTypesSource } from '../grammar/cst-types-source.js';

const target = path.resolve(import.meta.dirname, '../grammar/generated/cst.ts');
fs.writeFileSync(target, cstTypesSource());
console.log(`wrote ${target}`);
