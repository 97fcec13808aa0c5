/**
 * Run-time helpers for the operators of Double Braces expressions (`+ - * / %`, comparisons,
 * `!`, templates). Operators are strict: a null or mistyped operand is a PipeError whose kind names
 * the operator (`OPERATOR_PLUS`…), unlike the null-tolerant functions. Conditions (`&&`, `||`,
 * `IF`, `??`) are emitted as JavaScript short-circuits over `isTrue`, so they are lazy.
 */
import type { Json } from '../types.js';
import { deepEqual, describeValue, fail, toText } from './values.js';

const OPERATOR_KINDS = {
  '+': 'OPERATOR_PLUS',
  '-': 'OPERATOR_MINUS',
  '*': 'OPERATOR_TIMES',
  '/': 'OPERATOR_DIVIDE',
  '%': 'OPERATOR_MODULO',
  '<': 'OPERATOR_COMPARE',
} as const;

type ArithmeticOperator = '-' | '*' | '/' | '%';

function operand(op: keyof typeof OPERATOR_KINDS, side: string, value: Json): number {
  if (typeof value === 'number') return value;
  return fail(OPERATOR_KINDS[op], `the ${side} operand of \`${op}\` must be a number, got ${describeValue(value)}`);
}

/**
 * `a + b`: adds two numbers, or joins two strings. Mixing a string with another type is an error
 * (write CONCAT or a template to join text with numbers).
 * @example add(1, 2) // 3
 */
export function add(left: Json, right: Json): Json {
  if (typeof left === 'string' && typeof right === 'string') return left + right;
  if (typeof left === 'number' && typeof right === 'number') return left + right;
  return fail(
    OPERATOR_KINDS['+'],
    `\`+\` adds two numbers or joins two strings, got ${describeValue(left)} and ${describeValue(right)}`,
  );
}

/** `a - b`, `a * b`, `a / b`, `a % b` on numbers; division and modulo by zero are errors. */
export function arith(op: ArithmeticOperator, left: Json, right: Json): number {
  const a = operand(op, 'left', left);
  const b = operand(op, 'right', right);
  switch (op) {
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (b === 0) fail(OPERATOR_KINDS['/'], 'division by zero');
      return a / b;
    case '%':
      if (b === 0) fail(OPERATOR_KINDS['%'], 'modulo by zero');
      return a % b;
  }
}

/** Unary minus. */
export function neg(value: Json): number {
  if (typeof value === 'number') return -value;
  return fail(OPERATOR_KINDS['-'], `the operand of unary \`-\` must be a number, got ${describeValue(value)}`);
}

/** `==` and `!=`: deep equality, like EQUALTO. */
export function eq(left: Json, right: Json): boolean {
  return deepEqual(left, right);
}

/**
 * Ordering for `< <= > >=`: null is smallest; numbers with numbers, strings with strings.
 * Returns negative, zero or positive.
 */
export function compare(left: Json, right: Json): number {
  if (left === null || right === null) return (left === null ? 0 : 1) - (right === null ? 0 : 1);
  if (typeof left === 'number' && typeof right === 'number') return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return fail(OPERATOR_KINDS['<'], `cannot order ${describeValue(left)} and ${describeValue(right)}`);
}

export function lt(left: Json, right: Json): boolean {
  return compare(left, right) < 0;
}
export function le(left: Json, right: Json): boolean {
  return compare(left, right) <= 0;
}
export function gt(left: Json, right: Json): boolean {
  return compare(left, right) > 0;
}
export function ge(left: Json, right: Json): boolean {
  return compare(left, right) >= 0;
}

/** Condition test used by `&&`, `||`, `!`, IF and SWITCHCASE: only `true` is true (null is false). */
export function isTrue(value: Json): boolean {
  return value === true;
}

/** `a ?? b` helper when `a` must be evaluated once: null (or missing) falls back. */
export function isNull(value: Json | undefined): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * A `"text {{ a }} more"` template: parts joined as text (null → "", objects → JSON text).
 * @example template('id-', 12) // "id-12"
 */
export function template(...parts: readonly Json[]): string {
  let out = '';
  for (const part of parts) out += toText(part);
  return out;
}
