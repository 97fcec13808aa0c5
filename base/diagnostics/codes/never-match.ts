import type { CodeTable } from '../codes.js';

/**
 * Values that can never match (issue 20): a literal outside the values its field may hold, a schema
 * no document satisfies, a time zone the run time does not know, an HTTP answer that cannot be
 * sent as written. Each code keeps its area's range (3xxx configuration, 4xxx message shapes,
 * 5xxx patterns); they live together because one rule of thumb unites them: something written
 * in the .pipe file that no run can ever make true.
 */
export const neverMatchCodes = {
  PIPE4050: {
    title: 'Literal outside the enum',
    severity: 'error',
    phase: 'check',
    explain:
      'The field is compared with a string its shape can never hold: its schema lists the values it may take (`enum`, or `const`), and the literal is none of them, so `==` is always false and `!=` always true — most often a typo of one of the values. Checked in Double Braces (`==`, `!=`, `EQUALTO`) and in JSONPath filters (`[?(@.status == \'…\')]`), wherever the field\'s shape is a closed list of strings; a field that may hold any string (an open `enum` written with `anyOf`, a value of unknown shape) is never reported.\n\nExample: `when {{ message.body.status == "shiped" }}` where the body schema says `status: { enum: ["pending", "shipped"] }` — write `"shipped"`.',
  },
} as const satisfies CodeTable;
