import { describe, expect, it } from 'vitest';
import { compileJslt } from './index.js';

const problems = (query: string): string[] =>
  compileJslt(query, { file: 'f.pipe', mapOffset: (o) => o }).diagnostics.map((d) => `${d.code} ${d.message}`);

describe('JSLT format-time zones', () => {
  it('refuses a literal zone the run time does not know, with the closest one', () => {
    expect(problems('format-time(.ts, "yyyy", "Europe/Berlni")')).toEqual([
      "PIPE5550 Unknown timezone Europe/Berlni; did you mean 'Europe/Berlin'?",
    ]);
  });

  it('accepts the zones the run time knows and zones computed from the input', () => {
    expect(problems('format-time(.ts, "yyyy", "America/Sao_Paulo")')).toEqual([]);
    expect(problems('format-time(.ts, "yyyy", "GMT")')).toEqual([]);
    expect(problems('format-time(.ts, "yyyy", .zone)')).toEqual([]);
  });
});
