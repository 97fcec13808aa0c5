/**
 * The Double Braces run-time library: what generated code imports as `B`
 * (`import * as B from '../runtime/braces/index.js'`). Functions are exported under their
 * upper-case Double Braces names (`B.CONCAT`), helpers under lower-case names (`B.get`, `B.add`).
 * Functions that need the execution take `ctx` first (`B.NOW(ctx)`, `B.FILESIZE(ctx, f)`).
 * Patterns (regex, date, number) are compiled once per distinct text and memoised here.
 */
export { AND, NOT, OR, XOR } from './comparison.js';
export {
  EQUALTO,
  GREATERTHAN,
  GREATERTHANEQUAL,
  IF,
  ISARRAY,
  ISBOOLEAN,
  ISNULL,
  ISNUMBER,
  ISOBJECT,
  ISSTRING,
  LESSTHAN,
  LESSTHANEQUAL,
  SWITCHCASE,
} from './conditional.js';
export { DIFFDATE, FORMATDATE, NOW, SUMDATE, TOISODATE } from './date.js';
export { FILEEXISTS, FILESIZE } from './file.js';
export {
  ARRAYTOOBJECT,
  CARDINALITYMANY,
  CARDINALITYONE,
  FIRSTELEMENT,
  GETELEMENTAT,
  JSONPATH,
  LASTELEMENT,
  NEWEMPTYARRAY,
  NEWEMPTYOBJECT,
  OBJECTTOARRAY,
  POP,
  PUSH,
  REMOVEAT,
  TOJSON,
  UNESCAPEJSON,
} from './json.js';
export {
  ABS,
  AVG,
  CEIL,
  COUNT,
  DIVIDE,
  FLOOR,
  LOG,
  MAX,
  MIN,
  MOD,
  MULTIPLY,
  POW,
  ROUND,
  SQRT,
  SUBTRACT,
  SUM,
} from './math.js';
export { EVERY, FILTER, FIND, GROUPBY, MAP, REDUCE, SOME, SORTBY, SUM_MAP } from './arrays.js';
export { FORMATNUMBER, RANDOMNUMBERS, TODOUBLE, TOINT, TOLONG, TONUMBER } from './numerical.js';
export {
  CAPITALIZE,
  CONCAT,
  CONTAINS,
  DEFAULT,
  ESCAPE,
  INDEXOF,
  JOIN,
  LASTINDEXOF,
  LEFTPAD,
  LOWERCASE,
  MATCHES,
  NORMALIZE,
  RANDOMSTRINGS,
  REPLACE,
  RIGHTPAD,
  SPLIT,
  STRINGMATCHES,
  SUBSTRING,
  TOSTRING,
  TRIM,
  UNESCAPE,
  UPPERCASE,
} from './string.js';
export {
  BASEDECODE,
  BASEENCODE,
  BASEURLDECODE,
  BASEURLENCODE,
  DECLASSIFY,
  SIZE,
  TOBOOLEAN,
  URIDECODE,
  URIENCODE,
  UUID,
} from './utilities.js';
export { add, arith, compare, eq, ge, gt, isNull, isTrue, le, lt, neg, template } from './operators.js';
export { field, fields, get, obj, toText } from './values.js';
/** Condition test for `choice when {{ … }}`: only `true` is true (null and everything else is false). */
export { isTrue as isTruthy } from './operators.js';
