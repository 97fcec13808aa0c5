/** The editor sees message shapes: hover on a step shows what it receives; `message.` completes fields. */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../compiler/ast/parse-file.js';
import { loadRegistry } from '../../compiler/connectors/load-registry.js';
import { compile } from '../../compiler/compile.js';
import { complete, hover, type ProjectView } from '../../compiler/lsp/features.js';

const source = `schema Order {
  type: "object", additionalProperties: false, required: ["total"],
  properties: { total: { type: "number" }, customer: { type: "object", additionalProperties: false, properties: { name: { type: "string" } } } },
}

pipeline orders {
  trigger http { method: POST, path: "/orders", body: Order }
  log { message: "total {{ message.body.total }}" }
  respond 200 { name: {{ message.body.customer.n }} }
}
`;

const registry = await loadRegistry();

describe('language server: message shapes', () => {
  const file = '/virtual/orders.pipe';
  const result = compile({ files: [{ path: file, text: source }], registry, host: { readFile: () => undefined } });
  const project: ProjectView = {
    files: [{ path: file, text: source, ast: parseFile(file, source).value }],
    registry,
    shapes: result.shapes ?? [],
  };

  it('hover on a step shows the message it receives', () => {
    const offset = source.indexOf('log {') + 1;
    const shown = hover(project, file, offset);
    expect(shown?.markdown).toContain('**message** at this step');
    expect(shown?.markdown).toContain('total');
  });

  it('completes message fields from the inferred shape', () => {
    const atBody = source.indexOf('message.body.total') + 'message.body.'.length;
    const items = complete(project, file, atBody).items.map((i) => i.label);
    expect(items).toEqual(expect.arrayContaining(['total', 'customer']));
    const atCustomer = source.indexOf('customer.n') + 'customer.n'.length;
    const nested = complete(project, file, atCustomer);
    expect(nested.items.map((i) => i.label)).toEqual(['name']);
  });

  it('hover on an event subscriber shows the message narrowed to what its publishers send', () => {
    const text = `schema Failure { type: "object", required: ["id"], properties: { id: { type: "string" } } }

pipeline checkout {
  trigger http { method: POST, path: "/checkout" }
  publish failed { payload: { id: "A-1", summary: "declined" } }
  respond 202 { accepted: true }
}

pipeline on-failed {
  trigger event { name: "failed", body: Failure }
  log { message: "{{ message.summary }}" }
}
`;
    const path = '/virtual/failed.pipe';
    const compiled = compile({ files: [{ path, text }], registry, host: { readFile: () => undefined } });
    expect(compiled.diagnostics).toEqual([]);
    const view: ProjectView = {
      files: [{ path, text, ast: parseFile(path, text).value }],
      registry,
      shapes: compiled.shapes ?? [],
    };
    const shown = hover(view, path, text.indexOf('log {') + 1)?.markdown ?? '';
    expect(shown).toContain('summary');
    expect(shown).toContain('What every publisher of `failed` sends');
    expect(shown).not.toContain('…');
  });
});
