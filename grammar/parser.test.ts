import { describe, expect, it } from 'vitest';
import { loadedFromBundle } from './chevrotain.js';
import { createPipeLexer } from './lexer.js';
import { PipeParser } from './parser.js';

// Production builds the lexer and parser without Chevrotain's definition checks (they cost start-up
// time on every `pipec` run); these tests build them with the checks on, so a token or grammar
// mistake (an ambiguous alternative, left recursion, an unreachable token pattern) still fails here.
describe('grammar definition', () => {
  it('passes Chevrotain’s token checks', () => {
    expect(createPipeLexer({ validateTokens: true }).lexerDefinitionErrors).toEqual([]);
  });

  it('passes Chevrotain’s grammar validations', () => {
    // With validations on, Chevrotain throws from performSelfAnalysis and lists every definition error.
    expect(() => new PipeParser({ validateGrammar: true })).not.toThrow();
  });

  it('loads Chevrotain from its single-file bundle (the package entry costs ≈ 0.5 s of start-up)', () => {
    expect(loadedFromBundle).toBe(true);
  });
});
