import { describe, expect, it } from 'vitest';
import { tuneV8 } from './launch.js';

describe('tuneV8', () => {
  it('sets the inlining budgets node was not given', () => {
    expect(tuneV8(['--enable-source-maps'], '--max-old-space-size=512')).toEqual([
      '--max-inlined-bytecode-size=1840',
      '--max-inlined-bytecode-size-cumulative=3680',
    ]);
  });

  it('leaves each setting alone when node was given its own, on the command line or in NODE_OPTIONS', () => {
    expect(tuneV8(['--max_inlined_bytecode_size=900'], '')).toEqual(['--max-inlined-bytecode-size-cumulative=3680']);
    expect(tuneV8([], '--max-old-space-size=512 --max-inlined-bytecode-size-cumulative=2000')).toEqual([
      '--max-inlined-bytecode-size=1840',
    ]);
    // The cumulative budget is another flag than the per-function one.
    expect(tuneV8(['--max-inlined-bytecode-size-cumulative=100'], '')).toEqual(['--max-inlined-bytecode-size=1840']);
    expect(tuneV8(['--max-inlined-bytecode-size=100', '--max-inlined-bytecode-size-cumulative=100'], '')).toEqual([]);
  });
});
