/**
 * docs/connectors/ is generated from the connectors' and triggers' schema.json (npm run
 * docs:connectors) and stays true: fresh, every documented error kind is one the runtime raises,
 * every kind a connector's own folder raises is documented, and each trigger's documented first
 * message has the fields the compiler gives it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaToType } from '../compiler/check/shapes.js';
import { compile } from '../compiler/compile.js';
import { loadRegistry } from '../compiler/connectors/load-registry.js';
import type { PipeType } from '../compiler/types/pipe-type.js';
import { renderConnectorDocs } from '../scripts/connectors-doc.js';

const root = path.resolve(import.meta.dirname, '..');
const registry = await loadRegistry();
const schemas = [...registry.connectors.values(), ...registry.triggers.values()];

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(
      (f) =>
        f.isFile() &&
        f.name.endsWith('.ts') &&
        !f.name.includes('.test.') &&
        !path.join(f.parentPath, f.name).includes('test-support'),
    )
    .map((f) => fs.readFileSync(path.join(f.parentPath, f.name), 'utf8'));
}

describe('docs/connectors', () => {
  it('is generated from the schemas (npm run docs:connectors)', () => {
    const pages = renderConnectorDocs(registry);
    const dir = path.join(root, 'docs', 'connectors');
    expect(
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort(),
    ).toEqual([...pages.keys()].sort());
    for (const [file, text] of pages) expect(fs.readFileSync(path.join(dir, file), 'utf8'), file).toBe(text);
  });

  it('every connector and trigger says how it fails', () => {
    for (const schema of schemas)
      expect(Array.isArray(schema['x-pipe-errors']), `${schema.kind} ${schema.name}`).toBe(true);
  });

  it('documents only kinds the runtime raises', () => {
    const runtime = sources(path.join(root, 'runtime')).join('\n');
    for (const schema of schemas) {
      for (const { kind } of schema['x-pipe-errors'] ?? []) {
        if (kind)
          expect(runtime.includes(`'${kind}'`) || runtime.includes(`"${kind}"`), `${schema.name}: ${kind}`).toBe(true);
      }
    }
  });

  it('documents every kind a connector raises in its own folder', () => {
    for (const schema of registry.connectors.values()) {
      const folder = path.join(root, 'runtime', 'connectors', schema.name);
      if (!fs.existsSync(folder)) continue;
      const raised = new Set(
        sources(folder).flatMap((text) => [...text.matchAll(/kind: '([A-Z_]+)'/g)].map((m) => m[1] as string)),
      );
      const documented = new Set((schema['x-pipe-errors'] ?? []).map((e) => e.kind));
      expect(
        [...raised].filter((k) => !documented.has(k)),
        schema.name,
      ).toEqual([]);
    }
  });

  it("documents each trigger's first message with the fields the compiler gives it", () => {
    const fieldsOf = (t: PipeType | undefined): string[] => (t?.kind === 'object' ? Object.keys(t.fields).sort() : []);
    // The message each trigger's compile part gives its first step (the `log` after it).
    const triggers: Record<string, string> = {
      http: 'http { method: POST, path: "/h" }',
      'http-file': 'http-file { path: "/f" }',
      scheduler: 'scheduler { cron: "0 * * * *" }',
      amqp: 'amqp { account: broker, queue: "q" }',
      mqtt: 'mqtt { account: broker, topics: ["t/#"] }',
    };
    const source =
      'account broker: connection { url: "amqp://127.0.0.1" }\n' +
      Object.entries(triggers)
        .map(([name, trigger]) => `pipeline p-${name} {\n  trigger ${trigger}\n  log { message: "x" }\n}\n`)
        .join('');
    const file = '/virtual/triggers.pipe';
    const result = compile({ files: [{ path: file, text: source }], registry, host: { readFile: () => undefined } });
    for (const name of Object.keys(triggers)) {
      const at = source.indexOf('log {', source.indexOf(`pipeline p-${name} {`));
      const given = result.shapes?.find((s) => s.span.start === at)?.message;
      expect(given, name).toBeDefined();
      const documented = registry.triggers.get(name)?.output;
      expect(fieldsOf(schemaToType(documented)), name).toEqual(fieldsOf(given));
    }
  });
});
