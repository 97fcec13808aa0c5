import { describe, expect, it } from 'vitest';
import { tuneYoungGeneration } from './launch.js';

describe('tuneYoungGeneration', () => {
  it('leaves the young generation alone when node was given its own growth factor', () => {
    expect(tuneYoungGeneration(['--semi-space-growth-factor=4'], '')).toBe(false);
    expect(tuneYoungGeneration([], '--max-old-space-size=512 --semi_space_growth_factor=2')).toBe(false);
  });

  it('sets the growth factor otherwise', () => {
    expect(tuneYoungGeneration(['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });
});
