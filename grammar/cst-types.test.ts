/** grammar/generated/cst.ts (the CST types compiler/ast/ reads) is current with the grammar. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cstTypesSource } from './cst-types-source.js';

describe('generated CST types', () => {
  it('are the current output of their generator (npm run gen:cst)', () => {
    const file = path.join(import.meta.dirname, 'generated', 'cst.ts');
    expect(fs.readFileSync(file, 'utf8')).toBe(cstTypesSource());
  });

  it('name every rule of the parser with its labelled children', () => {
    const source = cstTypesSource();
    expect(source).toContain('export interface PipelineDeclCstNode extends CstNode');
    expect(source).toMatch(/export type ImportDeclCstChildren = \{[^}]*\balias\?: IToken\[\];/);
  });
});
