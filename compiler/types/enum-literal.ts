/**
 * Literals a field can never equal: when a field's shape allows only a closed list of strings (a
 * schema's `enum` or `const`), a comparison with a string outside that list is always false; and
 * under strict equality (Double Braces' `==`, EQUALTO) a number, string or boolean literal never
 * equals a field whose shape holds only scalars of other types (`message.status == "200"` after
 * `rest`, whose status is an integer). Shared by the Double Braces checker and the JSONPath filter
 * typing (`[?(@.status == 'x')]`, loose JavaScript equality: the enum rule only), which word the
 * diagnostic. Quiet whenever the shape may hold the literal (a plain `string`, `unknown`, objects
 * and arrays whose typing is left to other checks).
 */
import { closest } from '../../base/diagnostics/suggest.js';
import type { PipeType } from './pipe-type.js';

/** Why a strict comparison with a literal is never true. */
export type NeverEqual =
  ({ readonly kind: 'enum' } & EnumMiss) | { readonly kind: 'type'; readonly fieldType: PipeType };

/** The JSON type a scalar shape member holds (`number` for integers too). */
const SCALAR_KINDS = new Set(['string', 'number', 'boolean']);

/**
 * Whether a strict comparison (deep equality) of a field of `type` with `literal` is never true:
 * the literal is a string outside the field's enum, or of a type no member of the field's shape
 * has. Undefined when it may be true, or when the shape is not known to be scalars.
 * @example literalNeverEquals({ kind: 'number', integer: true }, '200') // { kind: 'type', … }
 */
export function literalNeverEquals(type: PipeType, literal: string | number | boolean): NeverEqual | undefined {
  const members = (type.kind === 'union' ? type.members : [type]).filter((m) => m.kind !== 'null');
  if (members.length === 0 || members.some((m) => !SCALAR_KINDS.has(m.kind))) return undefined;
  const literalKind = typeof literal;
  if (members.some((m) => m.kind === literalKind)) {
    if (typeof literal !== 'string') return undefined;
    const miss = literalOutsideEnum(type, literal);
    return miss ? { kind: 'enum', ...miss } : undefined;
  }
  return { kind: 'type', fieldType: type };
}

export interface EnumMiss {
  /** The strings the field may hold, as its shape lists them. */
  readonly values: readonly string[];
  /** The closest of them to the literal, when one is close enough to be a typo. */
  readonly suggestion?: string;
}

/**
 * The strings a value of this type is limited to, or undefined when it may be any string or a
 * value of another kind. `null` members are allowed (a missing optional field equals no string).
 * @example closedStrings({ kind: 'string', enum: ['a', 'b'] }) // ['a', 'b']
 */
export function closedStrings(type: PipeType): readonly string[] | undefined {
  const members = type.kind === 'union' ? type.members : [type];
  const values: string[] = [];
  for (const member of members) {
    if (member.kind === 'null') continue;
    // A literal's value (`json-generator { json: { state: "new" } }`, a global) may be edited to
    // any string: only a list a schema declares says what the field can never hold.
    if (member.kind !== 'string' || member.enum === undefined || member.declared !== true) return undefined;
    values.push(...member.enum);
  }
  return values.length > 0 ? [...new Set(values)] : undefined;
}

/**
 * Whether a string literal lies outside the closed values of `type`; undefined when it is one of
 * them or when the type is not closed.
 * @example literalOutsideEnum({ kind: 'string', enum: ['shipped'] }, 'shiped') // { values: ['shipped'], suggestion: 'shipped' }
 */
export function literalOutsideEnum(type: PipeType, literal: string): EnumMiss | undefined {
  const values = closedStrings(type);
  if (values === undefined || values.includes(literal)) return undefined;
  // One- and two-letter values are all within one edit of each other: only a case slip is a guess.
  const best = closest(literal, values, 1)[0];
  const suggestion = best !== undefined && (literal.length > 2 || best.distance < 1) ? best.candidate : undefined;
  return suggestion === undefined ? { values } : { values, suggestion };
}
