/**
 * Small shapes the JOLT shape inference builds (infer-shape.ts, infer-modify.ts) and the result
 * types of the modify functions (runtime/jolt/functions.ts): what `=toInteger` or `=concat(…)` gives
 * when it gives something, and whether it surely does.
 */
import { arrayOf, BOOLEAN, INTEGER, NULL, NUMBER, STRING, UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { union, withoutNull } from '../types/type-ops.js';
import { membersOf } from './shape-read.js';

export const ARRAY_OF_UNKNOWN: PipeType = arrayOf(UNKNOWN);

/** A new, empty map (closed: nothing else is in it). */
export function emptyObject(): Extract<PipeType, { kind: 'object' }> {
  return { kind: 'object', fields: {}, open: false };
}

/** What a function call gives: its type when it gives a value, and whether it may give none. */
export interface CallResult {
  readonly type: PipeType;
  readonly mayGiveNothing: boolean;
}

/** Functions applied to each item when given a list (Jolt's single-argument functions). */
type Kind = PipeType['kind'];
const PER_ITEM: ReadonlyMap<string, { result: PipeType; accepts: readonly Kind[] }> = new Map(
  Object.entries({
    toLower: { result: STRING, accepts: ['string'] },
    toUpper: { result: STRING, accepts: ['string'] },
    trim: { result: STRING, accepts: ['string'] },
    abs: { result: NUMBER, accepts: ['number'] },
    toInteger: { result: INTEGER, accepts: ['number'] },
    toLong: { result: INTEGER, accepts: ['number'] },
    toDouble: { result: NUMBER, accepts: ['number'] },
    toBoolean: { result: BOOLEAN, accepts: ['boolean'] },
    toString: { result: STRING, accepts: ['string', 'number', 'boolean'] as Kind[] },
  }),
);

/** Functions whose result has one type whatever their arguments (when they give one). */
const FIXED: Readonly<Record<string, PipeType>> = {
  concat: UNKNOWN,
  join: STRING,
  split: arrayOf(STRING),
  substring: STRING,
  leftPad: STRING,
  rightPad: STRING,
  toJsonString: STRING,
  intSum: INTEGER,
  longSum: INTEGER,
  intSubtract: INTEGER,
  longSubtract: INTEGER,
  doubleSum: NUMBER,
  doubleSubtract: NUMBER,
  avg: NUMBER,
  divide: NUMBER,
  divideAndRound: NUMBER,
  multiply: NUMBER,
  size: INTEGER,
  isString: BOOLEAN,
  isNumber: BOOLEAN,
  isBoolean: BOOLEAN,
  isList: BOOLEAN,
  isMap: BOOLEAN,
  isNull: NULL,
  toList: arrayOf(UNKNOWN),
};

/** Functions that give their argument back (or part of it). */
const SAME_AS_ARGUMENT = new Set(['notNull', 'isPresent', 'sort']);

/** `=name` applied to one argument of type `arg` (undefined: called without arguments). */
export function callResult(name: string, arg: PipeType | undefined): CallResult {
  const perItem = PER_ITEM.get(name);
  if (perItem !== undefined) {
    if (arg === undefined) return { type: NULL, mayGiveNothing: true };
    const members = membersOf(arg);
    const always = members.every((m) => perItem.accepts.includes(m.kind));
    const lists = members.some((m) => m.kind === 'array' || m.kind === 'unknown');
    return { type: lists ? union(perItem.result, arrayOf(UNKNOWN)) : perItem.result, mayGiveNothing: !always };
  }
  if (Object.hasOwn(FIXED, name)) return { type: FIXED[name] as PipeType, mayGiveNothing: true };
  if (SAME_AS_ARGUMENT.has(name)) return { type: arg === undefined ? UNKNOWN : withoutNull(arg), mayGiveNothing: true };
  return { type: UNKNOWN, mayGiveNothing: true };
}
