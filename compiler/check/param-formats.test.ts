import { describe, expect, it } from 'vitest';
import { parseFile } from '../ast/parse-file.js';
import { toLiteral } from '../ast/literal.js';
import { formatProblems } from './param-formats.js';
import type { ObjectValue } from '../ast/ast.js';

/** The parameters of the one step of a pipeline written around `params`. */
function paramsOf(params: string): ObjectValue {
  const text = `pipeline p {\n  trigger http { method: POST, path: "/p" }\n  thing ${params}\n}\n`;
  const pipeline = parseFile('p.pipe', text).value.decls.find((d) => d.kind === 'pipeline');
  const step = pipeline?.kind === 'pipeline' ? pipeline.steps[0] : undefined;
  if (step?.kind !== 'connector') throw new Error('no step');
  return step.params;
}

const schema = {
  type: 'object',
  properties: {
    zone: { type: 'string', format: 'timezone' },
    windows: { type: 'array', items: { type: 'object', properties: { tz: { type: 'string', format: 'timezone' } } } },
    label: { type: 'string' },
  },
};
const owner = { what: 'connector', name: 'thing' };
const codes = (params: string): string[] =>
  formatProblems(schema, toLiteral(paramsOf(params)), owner).map((d) => `${d.code} ${d.primary.message}`);

describe('formatProblems', () => {
  it('checks every value whose schema says format timezone, nested ones too', () => {
    expect(
      codes('{ zone: "Europe/Berlni", windows: [{ tz: "UTC" }, { tz: "Asia/Tokio" }], label: "Mars/Olympus" }'),
    ).toEqual(['PIPE5550 did you mean "Europe/Berlin"?', 'PIPE5550 did you mean "Asia/Tokyo"?']);
  });

  it('leaves valid zones and expressions alone', () => {
    expect(codes('{ zone: "America/Sao_Paulo", windows: [{ tz: "{{ message.tz }}" }] }')).toEqual([]);
  });
});
