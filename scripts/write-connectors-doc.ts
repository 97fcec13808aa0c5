/** `npm run docs:connectors`: writes docs/connectors/ from the connectors' and triggers' schema.json. */
import fs from 'node:fs';
import path from 'node:path';
import { loadRegistry } from '../compiler/connectors/load-registry.js';
import { renderConnectorDocs } from './connectors-doc.js';

const target = path.resolve(import.meta.dirname, '../docs/connectors');
const pages = renderConnectorDocs(await loadRegistry());
fs.mkdirSync(target, { recursive: true });
// A page of a connector that no longer exists goes too.
for (const file of fs.readdirSync(target))
  if (file.endsWith('.md') && !pages.has(file)) fs.rmSync(path.join(target, file));
for (const [file, text] of pages) fs.writeFileSync(path.join(target, file), text);
console.log(`wrote ${pages.size} pages to ${target}`);
