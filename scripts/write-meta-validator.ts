import fs from 'node:fs';
import path from 'node:path';
import { draft07MetaValidatorSource } from '../compiler/check/meta-validator-source.js';

const target = path.resolve(import.meta.dirname, '../compiler/check/generated/draft-07-meta.ts');
fs.writeFileSync(target, draft07MetaValidatorSource());
console.log(`wrote ${target}`);
