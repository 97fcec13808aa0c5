/** Where pipec is installed: the folder holding its package.json (works from dist/ and from the sources). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'pipec') return (cached = dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the pipec package root');
    dir = parent;
  }
}
