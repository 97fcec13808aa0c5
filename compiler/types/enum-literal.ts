/**
 * String literals a field can never equal: when a field's shape allows only a closed list of
 * strings (a schema's `enum` or `const`), a comparison with a string outside that list is always
 * false. Shared by the Double Braces checker (`==`, `!=`, EQUALTO) and the JSONPath filter typing
 * (`[?(@.status == 'x')]`), which word the diagnostic.
 * Quiet whenever the shape may hold another string (a plain `string` member, `unknown`) or a value
 * that loose equality could make equal to text (numbers, booleans, arrays, objects).
 */
import { suggest } from '../../base/diagnostics/suggest.js';
import type { PipeType } from './pipe-type.js';

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
    if (member.kind !== 'string' || member.enum === undefined) return undefined;
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
  const suggestion = suggest(literal, values);
  return suggestion === undefined ? { values } : { values, suggestion };
}
