import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: [
      'base/**/*.test.ts',
      'grammar/**/*.test.ts',
      'compiler/**/*.test.ts',
      'runtime/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'dist/**', 'out/**', 'test/.tmp/**'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores, three workers: many files wait much of their time (link cuts, redelivery timers,
    // child services starting), and a third worker uses the core they leave idle. More than that
    // only fight each other and the servers the tests start.
    maxWorkers: 3,
    // The fault-injection scenarios (test/chaos) wait on link cuts side by side, each in its own test.
    maxConcurrency: 16,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
