/**
 * The positional forms of the modify function library (what generated call sites use) against the
 * table functions they stand for: for every form and many argument values, calling the form must
 * give the same result as calling FUNCTIONS[name] with the arguments in a list.
 */
import { describe, expect, it } from 'vitest';
import {
  FUNCTIONS,
  KEEPS_ARGUMENTS,
  LIST_FORMS,
  NONE,
  NO_ARGUMENTS,
  ONE_ARGUMENT_FORMS,
  TWO_ARGUMENT_FORMS,
} from './functions.js';

/** Argument values covering each JSON type and the edges of the number rules. */
const VALUES: readonly unknown[] = [
  null,
  0,
  -0,
  1,
  -3,
  2.5,
  -7.25,
  2147483647,
  2147483648,
  -2147483649,
  1e21,
  Number.MAX_VALUE,
  '',
  ' ',
  'abc',
  ' Mixed Case ',
  '12',
  '-4',
  '1.5',
  '1e3',
  'NaN',
  '2147483648',
  '\u0000x\u0020',
  true,
  false,
  [],
  [1, 'a', null],
  ['b', 'C'],
  [[1]],
  {},
  { a: 1 },
];

/** The table function's result on a fresh copy of `args` (some table functions change lists). */
function viaTable(name: string, args: readonly unknown[]): unknown {
  const fn = FUNCTIONS[name];
  if (fn === undefined) throw new Error(name);
  return fn(structuredClone(args) as unknown[]);
}

function same(actual: unknown, expected: unknown): void {
  if (expected === NONE) expect(actual).toBe(NONE);
  else expect(actual).toEqual(expected);
  if (typeof expected === 'number') expect(Object.is(actual, expected)).toBe(true);
}

describe('positional forms of the modify functions', () => {
  it('one-argument forms equal the table functions for every value', () => {
    for (const [name, form] of Object.entries(ONE_ARGUMENT_FORMS)) {
      for (const a of VALUES) same(form(structuredClone(a)), viaTable(name, [a]));
    }
  });

  it('two-argument forms equal the table functions for every pair', () => {
    for (const [name, form] of Object.entries(TWO_ARGUMENT_FORMS)) {
      for (const a of VALUES)
        for (const b of VALUES) same(form(structuredClone(a), structuredClone(b)), viaTable(name, [a, b]));
    }
  });

  it('list forms equal the table functions for two and three arguments', () => {
    for (const [name, form] of Object.entries(LIST_FORMS)) {
      for (const a of VALUES) {
        for (const b of VALUES) {
          same(form(structuredClone([a, b])), viaTable(name, [a, b]));
          same(form(structuredClone([a, b, a])), viaTable(name, [a, b, a]));
        }
      }
    }
  });

  it('names only stock functions, and keeps no argument list a call site reuses', () => {
    for (const table of [ONE_ARGUMENT_FORMS, TWO_ARGUMENT_FORMS, LIST_FORMS]) {
      for (const name of Object.keys(table)) expect(Object.keys(FUNCTIONS)).toContain(name);
    }
    // every function outside KEEPS_ARGUMENTS returns something other than the list it was given
    for (const [name, fn] of Object.entries(FUNCTIONS)) {
      if (KEEPS_ARGUMENTS.has(name)) continue;
      for (const a of VALUES) {
        for (const b of VALUES) {
          const list = [a, b];
          const result = fn(list);
          expect(result === list, `${name} returned its argument list`).toBe(false);
          if (Array.isArray(result)) expect(result.some((e) => e === list)).toBe(false);
        }
      }
    }
  });

  it('shares a frozen empty argument list that every stock function accepts', () => {
    expect(Object.isFrozen(NO_ARGUMENTS)).toBe(true);
    for (const fn of Object.values(FUNCTIONS)) expect(() => fn(NO_ARGUMENTS)).not.toThrow();
  });
});
