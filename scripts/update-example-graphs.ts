/**
 * Regenerates the Mermaid diagram between `<!-- graph:begin -->` and `<!-- graph:end -->` in every
 * examples/<name>/README.md that has the markers, from the .pipe files of that example's folder.
 * Run: `npx tsx scripts/update-example-graphs.ts` (or `--check` to only report stale READMEs, exit 1).
 * test/graph/graph.test.ts checks that the committed blocks are fresh.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFile } from '../compiler/ast/parse-file.js';
import { findPipeFiles } from '../compiler/project-files.js';
import { loadRegistry } from '../compiler/connectors/load-registry.js';
import { renderGraph } from '../compiler/graph/index.js';

const BEGIN = '<!-- graph:begin -->';
const END = '<!-- graph:end -->';
// The schemas say which steps link pipelines (x-pipe-ref); their compile-time parts are not needed.
const registry = await loadRegistry({ compileParts: false });

/** README.md files directly under each folder of `examplesDir` that carry the markers. */
export function exampleReadmes(examplesDir: string): string[] {
  if (!fs.existsSync(examplesDir)) return [];
  return fs
    .readdirSync(examplesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(examplesDir, e.name, 'README.md'))
    .filter((f) => fs.existsSync(f) && fs.readFileSync(f, 'utf8').includes(BEGIN))
    .sort();
}

/** The README text with a freshly generated block between the markers (unchanged when fresh). */
export function refreshReadme(readmePath: string, text: string): string {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END, begin);
  if (begin < 0 || end < 0) return text;
  const { files } = findPipeFiles([path.dirname(readmePath)]);
  const asts = files.map((f) => parseFile(f, fs.readFileSync(f, 'utf8')).value);
  const block = `${BEGIN}\n\`\`\`mermaid\n${renderGraph(asts, registry, 'mermaid')}\`\`\`\n${END}`;
  return text.slice(0, begin) + block + text.slice(end + END.length);
}

function main(args: readonly string[]): number {
  const check = args.includes('--check');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let stale = 0;
  for (const readme of exampleReadmes(path.join(root, 'examples'))) {
    const text = fs.readFileSync(readme, 'utf8');
    const fresh = refreshReadme(readme, text);
    if (fresh === text) continue;
    stale++;
    if (check) process.stdout.write(`stale: ${path.relative(root, readme)}\n`);
    else {
      fs.writeFileSync(readme, fresh);
      process.stdout.write(`updated: ${path.relative(root, readme)}\n`);
    }
  }
  return check && stale > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
