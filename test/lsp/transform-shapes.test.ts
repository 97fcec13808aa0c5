/** After a `jolt` or `jslt` step the editor shows the shape the transform gives, inferred from its spec or query. */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../compiler/ast/parse-file.js';
import { loadRegistry } from '../../compiler/connectors/load-registry.js';
import { compile } from '../../compiler/compile.js';
import { complete, hover, type ProjectView } from '../../compiler/lsp/features.js';

const source = `schema Reading {
  type: "object", additionalProperties: false, required: ["deviceId", "value"],
  properties: { deviceId: { type: "string" }, value: { type: "number" } },
}

pipeline readings {
  trigger event { name: "reading", body: Reading, external: true }
  jolt reshape {
    spec: [{ operation: "shift", spec: { deviceId: "device.id", value: "reading" } }],
    fail-on-error: true,
  }
  log { message: "device {{ message.device.id }}" }
  jslt summary { query: """{ "id": .device.id, "size": size(.device) }""", fail-on-error: true }
  log { message: "summary {{ message.id }}" }
}
`;

const registry = await loadRegistry();

describe('language server: shapes after transforms', () => {
  const file = '/virtual/readings.pipe';
  const result = compile({ files: [{ path: file, text: source }], registry, host: { readFile: () => undefined } });
  const project: ProjectView = {
    files: [{ path: file, text: source, ast: parseFile(file, source).value }],
    registry,
    shapes: result.shapes ?? [],
  };

  it('compiles clean', () => {
    expect(result.diagnostics.map((d) => d.message)).toEqual([]);
  });

  it('hover after a jolt step shows the fields its shift writes', () => {
    const shown = hover(project, file, source.indexOf('log { message: "device') + 1)?.markdown ?? '';
    expect(shown).toContain('**message** at this step');
    expect(shown).toMatch(/device: \{[^}]*id: string/);
    expect(shown).toContain('reading: number');
    expect(shown).not.toContain('deviceId');
  });

  it('hover after a jslt step shows the fields of its object constructor', () => {
    const shown = hover(project, file, source.indexOf('log { message: "summary') + 1)?.markdown ?? '';
    expect(shown).toContain('id: string');
    expect(shown).toContain('size?: integer');
    expect(shown).not.toContain('reading');
  });

  it('completes the fields a transform gives', () => {
    const at = source.indexOf('message.device.id') + 'message.'.length;
    expect(complete(project, file, at).items.map((i) => i.label)).toEqual(['device', 'reading']);
  });
});
