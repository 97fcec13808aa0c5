import fs from 'node:fs';
import path from 'node:path';
import { renderDiagnosticsDoc } from './diagnostics-doc.js';

const target = path.resolve(import.meta.dirname, '../docs/diagnostics.md');
fs.writeFileSync(target, renderDiagnosticsDoc());
console.log(`wrote ${target}`);
