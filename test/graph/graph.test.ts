/**
 * `pipec graph` tests: goldens (`<case>.pipe` → `<case>.mmd` and `<case>.svg`, built-in renderer),
 * the model's cross-pipeline links, folder input through the CLI function, and that every example
 * README's embedded graph is fresh (scripts/update-example-graphs.ts regenerates them).
 * Set UPDATE_GOLDEN=1 to rewrite the goldens after a deliberate change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../compiler/ast/parse-file.js';
import { runGraph } from '../../compiler/cli/dx-commands.js';
import { loadRegistry } from '../../compiler/connectors/load-registry.js';
import { buildGraph, toMermaid, toSvg } from '../../compiler/graph/index.js';
import { exampleReadmes, refreshReadme } from '../../scripts/update-example-graphs.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '../..');

const parse = (file: string) => parseFile(file, fs.readFileSync(file, 'utf8')).value;
const registry = await loadRegistry({ compileParts: false });

describe('graph goldens', () => {
  const cases = fs
    .readdirSync(HERE)
    .filter((f) => f.endsWith('.pipe'))
    .sort();
  it('has at least four cases', () => expect(cases.length).toBeGreaterThanOrEqual(4));
  for (const name of cases) {
    it(name, () => {
      const file = path.join(HERE, name);
      const graph = buildGraph([parse(file)], registry);
      for (const [ext, text] of [
        ['.mmd', toMermaid(graph)],
        ['.svg', toSvg(graph)],
      ] as const) {
        const golden = file.replace(/\.pipe$/, ext);
        if (process.env['UPDATE_GOLDEN']) fs.writeFileSync(golden, text);
        expect(text).toBe(fs.readFileSync(golden, 'utf8'));
      }
      expect(toSvg(buildGraph([parse(file)], registry))).toBe(toSvg(graph)); // deterministic
    });
  }
});

describe('graph model', () => {
  it('links publish to every subscribed pipeline and execute to the called pipeline', () => {
    const graph = buildGraph([parse(path.join(HERE, 'events.pipe'))], registry);
    const label = (id: string) => graph.nodes.find((n) => n.id === id)?.label;
    const events = graph.edges.filter((e) => e.kind === 'event').map((e) => `${label(e.from)} -> ${label(e.to)}`);
    expect(events).toEqual([
      'publish order-placed -> event order-placed',
      'publish order-placed -> event order-placed',
    ]);
    expect(
      new Set(
        graph.edges.filter((e) => e.kind === 'event').map((e) => graph.nodes.find((n) => n.id === e.to)?.pipeline),
      ),
    ).toEqual(new Set(['notify', 'bill']));
    const execute = graph.edges
      .filter((e) => e.kind === 'call')
      .map((e) => [label(e.from), graph.nodes.find((n) => n.id === e.to)?.pipeline]);
    expect(execute).toEqual([['execute audit', 'audit']]);
  });

  it('labels choice edges with the shortened condition and ends the flow in terminals', () => {
    const graph = buildGraph([parse(path.join(HERE, 'choice.pipe'))], registry);
    const labels = graph.edges.map((e) => e.label).filter((l): l is string => l !== undefined);
    expect(labels).toContain('$[?(@.total < 500)]');
    expect(labels.some((l) => l.endsWith('…') && l.length === 40)).toBe(true);
    expect(labels).toContain('otherwise');
    expect(graph.nodes.filter((n) => n.shape === 'respond').map((n) => n.label)).toEqual([
      'respond 422',
      'respond 200',
      'respond 202',
    ]);
    expect(graph.nodes.filter((n) => n.shape === 'fail').map((n) => n.label)).toEqual(['fail 400']);
  });

  it('draws one pipeline with --pipeline and escapes Mermaid labels', () => {
    const graph = buildGraph([parse(path.join(HERE, 'events.pipe'))], registry, { pipeline: 'notify' });
    expect(graph.clusters.map((c) => c.label)).toEqual(['pipeline notify']);
    const mermaid = toMermaid(buildGraph([parse(path.join(HERE, 'branches.pipe'))], registry));
    expect(mermaid).toContain('#quot;');
    expect(mermaid).not.toMatch(/\|"[^"|]*"[^|]*"\|/);
  });
});

describe('pipec graph (command)', () => {
  it('draws a folder: cross-file event links, to stdout', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runGraph(
      [path.join(ROOT, 'test/lsp/fixtures/shop')],
      { format: 'mermaid', renderer: 'builtin' },
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/place_order_n\d+ -\.->\|"event order-placed"\| notify_n1/);
    expect(out.join('')).toMatch(/place_order_n\d+ ==>\|"execute"\| audit_n1/);
  });

  it('rejects an unknown --pipeline with the names it knows', async () => {
    const err: string[] = [];
    const code = await runGraph(
      [path.join(HERE, 'events.pipe')],
      { format: 'svg', renderer: 'builtin', pipeline: 'nope' },
      { out: () => undefined, err: (t) => err.push(t) },
    );
    expect(code).toBe(2);
    expect(err.join('')).toContain('place-order, notify, bill, audit');
  });
});

describe('example READMEs embed fresh graphs', () => {
  const readmes = exampleReadmes(path.join(ROOT, 'examples'));
  for (const readme of readmes) {
    it(path.relative(ROOT, readme), () => {
      const text = fs.readFileSync(readme, 'utf8');
      expect(refreshReadme(readme, text), 'run `npx tsx scripts/update-example-graphs.ts`').toBe(text);
    });
  }
});
