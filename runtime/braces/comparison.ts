/**
 * Double Braces COMPARISON (logical) functions (reference §1.4.1): AND, OR, NOT, XOR.
 * Only `true` counts as true; null (and anything else) is false.
 */
import type { Json } from '../types.js';

/** @example AND(true, true, null) // false */
export function AND(...values: readonly Json[]): boolean {
  return values.every((v) => v === true);
}

/** @example OR(false, null, true) // true */
export function OR(...values: readonly Json[]): boolean {
  return values.some((v) => v === true);
}

/** @example NOT(null) // true */
export function NOT(value: Json): boolean {
  return value !== true;
}

/** Pairwise, left to right: true when an odd number of arguments are true. @example XOR(true, false, true) // false */
export function XOR(...values: readonly Json[]): boolean {
  return values.reduce<boolean>((acc, v) => acc !== (v === true), false);
}
