/**
 * The signature of every Double Braces function: parameters (type, optional, variadic, and which
 * constant check a literal argument gets at build time), result type (fixed or computed from the
 * argument types), what the run-time call needs from the context, and a one-line summary.
 * This table is the single source for arity/type checks, emission and docs/double-braces.md.
 */
import {
  arrayOf,
  BOOLEAN,
  INTEGER,
  NULL,
  NUMBER,
  objectOf,
  STRING,
  UNKNOWN,
  type PipeType,
} from '../types/pipe-type.js';
import { union, widen, withoutNull } from '../types/type-ops.js';

/** Build-time checks for literal arguments (see constant-args.ts). */
export type ConstantKind =
  | 'numeric'
  | 'regex'
  | 'regex-flags'
  | 'date-format'
  | 'number-pattern'
  | 'locale'
  | 'zone'
  | 'date-unit'
  | 'escape-type'
  | 'charset'
  | 'random-charset'
  | 'jsonpath';

/**
 * A lambda parameter (beyond Digibee): the argument must be `x => body` with these parameter
 * names' count, and the body must give a value of `returns` (checked like an argument).
 */
export interface LambdaSpec {
  /** Names as documented; the parameters bind, in order, to the accumulator and/or the element. */
  readonly params: readonly ('acc' | 'x')[];
  readonly returns: PipeType;
}

export interface ParamSpec {
  /** For lambdas the documented form, e.g. `x => condition`. */
  readonly name: string;
  readonly type: PipeType;
  readonly optional?: boolean;
  /** Variadic: this parameter repeats (always last). */
  readonly rest?: boolean;
  readonly constant?: ConstantKind;
  readonly lambda?: LambdaSpec;
}

export type Group =
  'comparison' | 'numerical' | 'conditional' | 'date' | 'file' | 'json' | 'array' | 'math' | 'string' | 'utilities';

export interface FunctionSignature {
  readonly name: string;
  readonly group: Group;
  readonly params: readonly ParamSpec[];
  readonly result: PipeType | ((args: readonly PipeType[]) => PipeType);
  /** Run-time calls that take the execution context first: `B.NOW(ctx)`. */
  readonly needsContext?: boolean;
  /** Emitted inline as a lazy conditional rather than a library call. */
  readonly lazy?: boolean;
  /** Not in Digibee's documented list (our extra or a listed-only name we defined). */
  readonly extra?: boolean;
  /** With exactly one argument that is an array, folds its elements (SUM, AVG, MIN, MAX, COUNT). */
  readonly aggregate?: boolean;
  readonly summary: string;
  readonly example: string;
}

/** Scalars a string parameter accepts (numbers and booleans become their text). */
const TEXT: PipeType = union(STRING, NUMBER, BOOLEAN);
/** Numbers, or text holding a number (converted at run time). */
const NUMERIC: PipeType = union(NUMBER, STRING);
/** The type of a condition parameter (identity marks the parameters `cond` builds). */
export const CONDITION: PipeType = union(BOOLEAN, NULL);
const ANY_ARRAY: PipeType = arrayOf(UNKNOWN);
const OPEN_OBJECT: PipeType = { kind: 'object', fields: {}, open: true };

/** What the ordering functions (GREATERTHAN…) compare: null, numbers and text (numeric text as a number). */
const ORDERABLE: PipeType = union(NUMBER, STRING, NULL);
const ord = (name: string): ParamSpec => ({ name, type: ORDERABLE });
const any = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ name, type: UNKNOWN, ...extra });
const text = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ name, type: TEXT, ...extra });
const num = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({
  name,
  type: NUMERIC,
  constant: 'numeric',
  ...extra,
});
const arr = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ name, type: ANY_ARRAY, ...extra });
const cond = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ name, type: CONDITION, ...extra });
const opt = { optional: true } as const;
/** A lambda parameter: `x => …` over the elements, or `(acc, x) => …` for REDUCE. */
const fn = (form: string, params: LambdaSpec['params'], returns: PipeType): ParamSpec => ({
  name: form,
  type: UNKNOWN,
  lambda: { params, returns },
});
/** What a FILTER / SOME / EVERY / FIND lambda returns (only true selects). */
const PREDICATE: PipeType = CONDITION;
const SORT_KEY: PipeType = union(NUMBER, STRING, NULL);
const GROUP_KEY: PipeType = union(STRING, NUMBER, BOOLEAN, NULL);
const rest = { rest: true } as const;

const arg = (args: readonly PipeType[], i: number): PipeType => args[i] ?? UNKNOWN;
/** The element type of an array type (unknown for anything else). */
export const itemsOf = (t: PipeType): PipeType => {
  if (t.kind === 'array') return t.items;
  if (t.kind === 'union') return union(...t.members.filter((m) => m.kind !== 'null').map(itemsOf));
  return UNKNOWN;
};

function sig(
  name: string,
  group: Group,
  params: readonly ParamSpec[],
  result: FunctionSignature['result'],
  summary: string,
  example: string,
  more: Partial<FunctionSignature> = {},
): FunctionSignature {
  return { name, group, params, result, summary, example, ...more };
}

const MATH_NUMBER = (
  name: string,
  params: readonly ParamSpec[],
  summary: string,
  example: string,
  result: PipeType = NUMBER,
): FunctionSignature => sig(name, 'math', params, result, summary, example);

/** A math function that also folds ONE array argument (`SUM(MAP(…))`). */
const AGGREGATE = (
  name: string,
  params: readonly ParamSpec[],
  summary: string,
  example: string,
  result: PipeType = NUMBER,
  extra = false,
): FunctionSignature =>
  sig(name, 'math', params, result, summary, example, { aggregate: true, ...(extra ? { extra: true } : {}) });

export const SIGNATURES: readonly FunctionSignature[] = [
  // ── comparison (logical)
  sig(
    'AND',
    'comparison',
    [cond('b', rest)],
    BOOLEAN,
    'true when every argument is true (null is false)',
    'AND(true, message.active)',
  ),
  sig('OR', 'comparison', [cond('b', rest)], BOOLEAN, 'true when at least one argument is true', 'OR(false, true)'),
  sig('NOT', 'comparison', [cond('b')], BOOLEAN, 'negation; NOT(null) is true', 'NOT(message.blocked)'),
  sig(
    'XOR',
    'comparison',
    [cond('b', rest)],
    BOOLEAN,
    'pairwise exclusive or, left to right',
    'XOR(true, false, true)',
  ),
  // ── numerical
  sig(
    'FORMATNUMBER',
    'numerical',
    [num('value'), text('format', { constant: 'number-pattern' }), text('locale', { ...opt, constant: 'locale' })],
    STRING,
    'formats a number with a Java DecimalFormat pattern and locale (default en-US)',
    'FORMATNUMBER(1234.5, "#,##0.00", "pt-BR")',
  ),
  sig('TODOUBLE', 'numerical', [num('value')], NUMBER, 'number (numeric text is converted)', 'TODOUBLE("12.5")'),
  sig('TOINT', 'numerical', [num('value')], INTEGER, 'integer, truncated toward zero (32-bit range)', 'TOINT(12.345)'),
  sig('TOLONG', 'numerical', [num('value')], INTEGER, 'integer, truncated toward zero', 'TOLONG("300000")'),
  sig(
    'TONUMBER',
    'numerical',
    [
      text('value'),
      text('format', { constant: 'number-pattern' }),
      text('locale', { ...opt, constant: 'locale' }),
      cond('asInteger', opt),
    ],
    NUMBER,
    'parses text written with a DecimalFormat pattern and locale',
    'TONUMBER("R$ 300.754,15", "\'R$ \'###,###.##", "pt-BR")',
  ),
  sig(
    'RANDOMNUMBERS',
    'numerical',
    [num('min'), num('max')],
    INTEGER,
    'random integer between min and max, inclusive',
    'RANDOMNUMBERS(1, 6)',
  ),
  // ── conditional
  sig(
    'EQUALTO',
    'conditional',
    [any('a'), any('b')],
    BOOLEAN,
    'deep equality of any JSON values',
    'EQUALTO(message.type, "create")',
  ),
  sig(
    'GREATERTHAN',
    'conditional',
    [ord('a'), ord('b')],
    BOOLEAN,
    'a > b; null is the smallest value',
    'GREATERTHAN(message.total, 500)',
  ),
  sig(
    'GREATERTHANEQUAL',
    'conditional',
    [ord('a'), ord('b')],
    BOOLEAN,
    'a ≥ b; (null, null) is true',
    'GREATERTHANEQUAL(message.total, 500)',
  ),
  sig(
    'LESSTHAN',
    'conditional',
    [ord('a'), ord('b')],
    BOOLEAN,
    'a < b; null is the smallest value',
    'LESSTHAN(message.total, 500)',
  ),
  sig(
    'LESSTHANEQUAL',
    'conditional',
    [ord('a'), ord('b')],
    BOOLEAN,
    'a ≤ b; (null, null) is true',
    'LESSTHANEQUAL(message.total, 500)',
  ),
  sig(
    'IF',
    'conditional',
    [cond('condition'), any('whenTrue'), any('whenFalse')],
    (a) => union(arg(a, 1), arg(a, 2)),
    'whenTrue if the condition is true, else whenFalse (only the chosen branch runs)',
    'IF(message.vip, "gold", "standard")',
    { lazy: true },
  ),
  sig('ISOBJECT', 'conditional', [any('value')], BOOLEAN, 'true for a JSON object', 'ISOBJECT(message.body)'),
  sig('ISARRAY', 'conditional', [any('value')], BOOLEAN, 'true for an array', 'ISARRAY(message.items)'),
  sig('ISBOOLEAN', 'conditional', [any('value')], BOOLEAN, 'true for true or false', 'ISBOOLEAN(message.flag)'),
  sig('ISSTRING', 'conditional', [any('value')], BOOLEAN, 'true for a string', 'ISSTRING(message.id)'),
  sig('ISNUMBER', 'conditional', [any('value')], BOOLEAN, 'true for a number', 'ISNUMBER(message.total)'),
  sig('ISNULL', 'conditional', [any('value')], BOOLEAN, 'true for null or a missing path', 'ISNULL(message.argument)'),
  sig(
    'SWITCHCASE',
    'conditional',
    [any('default'), cond('condition'), any('result'), any('more', rest)],
    (a) => union(arg(a, 0), ...a.filter((_, i) => i >= 2 && i % 2 === 0)),
    'the result of the first true condition, else the default (only that result runs)',
    'SWITCHCASE("failed", ISNULL(message.x), "ok", ISNUMBER(message.x), "nok")',
    { lazy: true },
  ),
  // ── date
  sig(
    'FORMATDATE',
    'date',
    [
      text('value'),
      text('originFormat', { constant: 'date-format' }),
      text('destinationFormat', { ...opt, constant: 'date-format' }),
      text('localeOrigin', { ...opt, constant: 'locale' }),
      text('timezoneOrigin', { ...opt, constant: 'zone' }),
      text('localeDestination', { ...opt, constant: 'locale' }),
      text('timezoneDestination', { ...opt, constant: 'zone' }),
    ],
    formatDateResult,
    're-formats a date; "timestamp" means epoch milliseconds; a null destination gives ISO-8601',
    'FORMATDATE(1564670039000, "timestamp", "dd/MM/yyyy HH:mm:ss")',
  ),
  sig('NOW', 'date', [], INTEGER, 'current time in epoch milliseconds (the execution clock)', 'NOW()', {
    needsContext: true,
  }),
  sig(
    'SUMDATE',
    'date',
    [
      num('timestamp'),
      text('unit', { constant: 'date-unit' }),
      num('value'),
      text('zone', { ...opt, constant: 'zone' }),
    ],
    INTEGER,
    'adds value units (millisecond…year) to an epoch-ms timestamp',
    'SUMDATE(NOW(), "DAY", 1)',
  ),
  sig(
    'TOISODATE',
    'date',
    [
      text('value'),
      text('formatSource', { constant: 'date-format' }),
      text('locale', { ...opt, constant: 'locale' }),
      text('timezone', { ...opt, constant: 'zone' }),
    ],
    STRING,
    'parses a date and returns the instant as ISO-8601 UTC',
    'TOISODATE("25/12/2024 10:00:00", "dd/MM/yyyy HH:mm:ss", null, "America/Sao_Paulo")',
  ),
  sig(
    'DIFFDATE',
    'date',
    [num('timestamp1'), num('timestamp2'), text('unit', { constant: 'date-unit' })],
    INTEGER,
    'timestamp2 − timestamp1 in whole units (truncated)',
    'DIFFDATE(message.start, NOW(), "MINUTE")',
  ),
  // ── file
  sig(
    'FILEEXISTS',
    'file',
    [text('file')],
    BOOLEAN,
    'true when the file exists in the execution folder',
    'FILEEXISTS(message.fileName)',
    { needsContext: true },
  ),
  sig(
    'FILESIZE',
    'file',
    [text('file')],
    INTEGER,
    'size in bytes of a file in the execution folder',
    'FILESIZE(message.fileName)',
    { needsContext: true },
  ),
  // ── JSON
  sig(
    'JSONPATH',
    'json',
    [any('value'), text('expression', { constant: 'jsonpath' })],
    UNKNOWN,
    'evaluates a JSONPath (Jayway dialect, with min() max() avg() stddev() length())',
    'JSONPATH(message.items, "$[?(@.price > 10)]")',
  ),
  sig(
    'TOJSON',
    'json',
    [any('value')],
    (a) =>
      arg(a, 0).kind === 'string' || arg(a, 0).kind === 'unknown' || arg(a, 0).kind === 'union' ? UNKNOWN : arg(a, 0),
    'parses JSON text; other text stays text',
    'TOJSON(message.body)',
  ),
  sig(
    'UNESCAPEJSON',
    'json',
    [text('value')],
    STRING,
    'removes one level of JSON string escaping',
    'UNESCAPEJSON(message.payload)',
  ),
  sig(
    'GETELEMENTAT',
    'json',
    [arr('array'), num('index')],
    (a) => union(itemsOf(arg(a, 0)), NULL),
    '0-based element (null when out of range)',
    'GETELEMENTAT(message.items, 0)',
  ),
  sig(
    'FIRSTELEMENT',
    'json',
    [arr('array')],
    (a) => union(itemsOf(arg(a, 0)), NULL),
    'first element, null for an empty array',
    'FIRSTELEMENT(message.items)',
    { extra: true },
  ),
  sig(
    'LASTELEMENT',
    'json',
    [arr('array')],
    (a) => union(itemsOf(arg(a, 0)), NULL),
    'last element, null for an empty array',
    'LASTELEMENT(message.items)',
  ),
  sig(
    'REMOVEAT',
    'json',
    [arr('array'), num('index')],
    (a) => withoutNull(arg(a, 0)),
    'the array without the element at index',
    'REMOVEAT(message.items, 0)',
  ),
  sig(
    'PUSH',
    'json',
    [arr('array'), any('element', opt)],
    (a) => arrayOf(union(itemsOf(arg(a, 0)), a.length > 1 ? arg(a, 1) : NULL)),
    'the array with the element appended',
    'PUSH(message.items, { code: "x" })',
  ),
  sig(
    'POP',
    'json',
    [arr('array')],
    (a) => union(objectOf({ array: withoutNull(arg(a, 0)), element: union(itemsOf(arg(a, 0)), NULL) }), ANY_ARRAY),
    '{ array, element } without the last element; [] stays []',
    'POP(message.stack)',
  ),
  sig('NEWEMPTYOBJECT', 'json', [], OPEN_OBJECT, 'a new empty object', 'NEWEMPTYOBJECT()'),
  sig('NEWEMPTYARRAY', 'json', [], ANY_ARRAY, 'a new empty array', 'NEWEMPTYARRAY()'),
  sig(
    'CARDINALITYONE',
    'json',
    [any('data')],
    (a) =>
      arg(a, 0).kind === 'array' ? union(itemsOf(arg(a, 0)), NULL) : arg(a, 0).kind === 'unknown' ? UNKNOWN : arg(a, 0),
    'an array becomes its first element; anything else is unchanged',
    'CARDINALITYONE(message.items)',
  ),
  sig(
    'CARDINALITYMANY',
    'json',
    [any('data')],
    (a) => (arg(a, 0).kind === 'array' ? arg(a, 0) : arg(a, 0).kind === 'unknown' ? UNKNOWN : arrayOf(arg(a, 0))),
    'an array stays; anything else becomes [x]',
    'CARDINALITYMANY(message.item)',
  ),
  sig(
    'ARRAYTOOBJECT',
    'json',
    [arr('array')],
    OPEN_OBJECT,
    '[{key, value}] or [[key, value]] → object (our definition)',
    'ARRAYTOOBJECT([{ key: "a", value: 1 }])',
    { extra: true },
  ),
  sig(
    'OBJECTTOARRAY',
    'json',
    [{ name: 'object', type: OPEN_OBJECT }],
    arrayOf(objectOf({ key: STRING, value: UNKNOWN })),
    'object → [{key, value}] (our definition)',
    'OBJECTTOARRAY(message.headers)',
    { extra: true },
  ),
  // ── arrays with lambdas (beyond Digibee)
  sig(
    'MAP',
    'array',
    [arr('array'), fn('x => value', ['x'], UNKNOWN)],
    (a) => arrayOf(widen(arg(a, 1))),
    'the value of the lambda for every element',
    'MAP(message.items, x => x.price * x.quantity)',
    { extra: true },
  ),
  sig(
    'FILTER',
    'array',
    [arr('array'), fn('x => condition', ['x'], PREDICATE)],
    (a) => arrayOf(itemsOf(arg(a, 0))),
    'the elements for which the lambda is true',
    'FILTER(message.items, x => x.price > 10)',
    { extra: true },
  ),
  sig(
    'REDUCE',
    'array',
    [arr('array'), fn('(acc, x) => value', ['acc', 'x'], UNKNOWN), any('initial')],
    (a) => union(widen(arg(a, 2)), widen(arg(a, 1))),
    'folds the elements left to right, starting from initial',
    'REDUCE(message.items, (acc, x) => acc + x.quantity, 0)',
    { extra: true },
  ),
  sig(
    'SOME',
    'array',
    [arr('array'), fn('x => condition', ['x'], PREDICATE)],
    BOOLEAN,
    'true when the lambda is true for at least one element',
    'SOME(message.items, x => x.stock == 0)',
    { extra: true },
  ),
  sig(
    'EVERY',
    'array',
    [arr('array'), fn('x => condition', ['x'], PREDICATE)],
    BOOLEAN,
    'true when the lambda is true for every element (an empty array: true)',
    'EVERY(message.items, x => x.price > 0)',
    { extra: true },
  ),
  sig(
    'FIND',
    'array',
    [arr('array'), fn('x => condition', ['x'], PREDICATE)],
    (a) => union(itemsOf(arg(a, 0)), NULL),
    'the first element for which the lambda is true, else null',
    'FIND(message.items, x => x.sku == "A-1")',
    { extra: true },
  ),
  sig(
    'SORTBY',
    'array',
    [arr('array'), fn('x => key', ['x'], SORT_KEY), cond('descending', opt)],
    (a) => arrayOf(itemsOf(arg(a, 0))),
    'the elements ordered by a number or string key (stable; null first)',
    'SORTBY(message.items, x => x.price)',
    { extra: true },
  ),
  sig(
    'GROUPBY',
    'array',
    [arr('array'), fn('x => key', ['x'], GROUP_KEY)],
    OPEN_OBJECT,
    'an object whose fields are the keys and whose values are arrays of elements',
    'GROUPBY(message.items, x => x.category)',
    { extra: true },
  ),
  // ── math
  MATH_NUMBER('ABS', [num('n')], 'absolute value', 'ABS(-34)'),
  MATH_NUMBER('CEIL', [num('n')], 'smallest integer ≥ n', 'CEIL(12.885)', INTEGER),
  MATH_NUMBER('FLOOR', [num('n')], 'largest integer ≤ n', 'FLOOR(12.885)', INTEGER),
  MATH_NUMBER(
    'DIVIDE',
    [num('numerator'), num('denominator')],
    'numerator / denominator (division by zero is an error)',
    'DIVIDE(10, 4)',
  ),
  MATH_NUMBER('LOG', [num('value'), num('base')], 'logarithm of value in base', 'LOG(8, 2)'),
  AGGREGATE(
    'MAX',
    [num('n'), num('more', rest)],
    'largest argument, or largest element of one array (null when empty)',
    'MAX(8, 2)',
  ),
  AGGREGATE(
    'MIN',
    [num('n'), num('more', rest)],
    'smallest argument, or smallest element of one array (null when empty)',
    'MIN(8, 2)',
  ),
  MATH_NUMBER('MOD', [num('numerator'), num('denominator')], 'remainder (modulo by zero is an error)', 'MOD(8, 3)'),
  MATH_NUMBER('MULTIPLY', [num('n', rest)], 'product of the arguments', 'MULTIPLY(8, 2)'),
  MATH_NUMBER('POW', [num('base'), num('exponent')], 'base raised to exponent', 'POW(2, 10)'),
  MATH_NUMBER('ROUND', [num('n')], 'nearest integer, ties toward +∞', 'ROUND(12.5)', INTEGER),
  MATH_NUMBER('SQRT', [num('n')], 'square root', 'SQRT(16)'),
  MATH_NUMBER('SUBTRACT', [num('a'), num('b')], 'a − b', 'SUBTRACT(NOW(), 300000)'),
  AGGREGATE('SUM', [num('n', rest)], 'sum of the arguments, or of the elements of one array', 'SUM(8, 2)'),
  AGGREGATE(
    'AVG',
    [num('n'), num('more', rest)],
    'average of the arguments, or of the elements of one array (null when empty)',
    'AVG(MAP(message.items, x => x.price))',
    NUMBER,
    true,
  ),
  AGGREGATE(
    'COUNT',
    [any('value'), any('more', rest)],
    'number of arguments, or number of elements of one array',
    'COUNT(FILTER(message.items, x => x.price > 10))',
    INTEGER,
    true,
  ),
  // ── string
  sig('CAPITALIZE', 'string', [text('value')], STRING, 'first character upper-cased', 'CAPITALIZE(message.name)'),
  sig(
    'CONCAT',
    'string',
    [any('value', rest)],
    STRING,
    'joins the values as text (null is "", objects are JSON text)',
    'CONCAT(message.first, " ", message.last)',
  ),
  sig(
    'CONTAINS',
    'string',
    [text('value'), text('part')],
    BOOLEAN,
    'true when part occurs in value',
    'CONTAINS(message.email, "@")',
  ),
  sig(
    'DEFAULT',
    'string',
    [any('value'), any('defaultValue')],
    (a) => union(withoutNull(arg(a, 0)), arg(a, 1)),
    'value, or defaultValue when value is null or missing',
    'DEFAULT(message.age, "not available")',
  ),
  sig(
    'ESCAPE',
    'string',
    [text('value'), text('type', { ...opt, constant: 'escape-type' })],
    STRING,
    'escapes for JSON (default), XML, CSV or HTML',
    'ESCAPE("<b>", "HTML")',
  ),
  sig(
    'UNESCAPE',
    'string',
    [text('value'), text('type', { ...opt, constant: 'escape-type' })],
    STRING,
    'reverses ESCAPE',
    'UNESCAPE("&lt;b&gt;", "HTML")',
  ),
  sig(
    'INDEXOF',
    'string',
    [text('value'), text('part'), num('fromIndex', opt)],
    INTEGER,
    'first index of part (−1 when absent)',
    'INDEXOF("banana", "an")',
  ),
  sig(
    'LASTINDEXOF',
    'string',
    [text('value'), text('part')],
    INTEGER,
    'last index of part (−1 when absent)',
    'LASTINDEXOF("Hello, world!", "o")',
  ),
  sig(
    'JOIN',
    'string',
    [text('separator'), any('value', rest)],
    STRING,
    'joins the values (arrays contribute their elements) with a separator',
    'JOIN(", ", message.tags)',
  ),
  sig(
    'LEFTPAD',
    'string',
    [text('value'), num('length'), text('padding', opt)],
    STRING,
    'pads on the left to length (default blank)',
    'LEFTPAD(message.code, 8, "0")',
  ),
  sig(
    'RIGHTPAD',
    'string',
    [text('value'), num('length'), text('padding', opt)],
    STRING,
    'pads on the right to length (default blank)',
    'RIGHTPAD("example", 10, "-")',
  ),
  sig('LOWERCASE', 'string', [text('value')], STRING, 'lower case', 'LOWERCASE(message.email)'),
  sig('UPPERCASE', 'string', [text('value')], STRING, 'upper case', 'UPPERCASE(message.code)'),
  sig(
    'MATCHES',
    'string',
    [text('value'), text('pattern', { constant: 'regex' })],
    BOOLEAN,
    'true when the WHOLE value matches the regex',
    'MATCHES(message.phone, "\\\\d{3}-\\\\d{4}")',
  ),
  sig('NORMALIZE', 'string', [text('value')], STRING, 'removes diacritics', 'NORMALIZE("São Paulo")'),
  sig(
    'RANDOMSTRINGS',
    'string',
    [text('charset', { constant: 'random-charset' }), num('length')],
    STRING,
    'random text from ALPHANUMERIC, ALPHABETIC, ASCII or NUMERIC',
    'RANDOMSTRINGS("ALPHANUMERIC", 12)',
  ),
  sig(
    'REPLACE',
    'string',
    [text('value'), text('pattern', { constant: 'regex' }), text('replacement')],
    STRING,
    'replaces every regex match ($1 refers to a group)',
    'REPLACE(message.phone, "\\\\D", "")',
  ),
  sig(
    'SPLIT',
    'string',
    [text('value'), text('pattern', { constant: 'regex' })],
    arrayOf(STRING),
    'splits on a regex (Java rules: trailing empty parts dropped)',
    'SPLIT(message.csv, ",")',
  ),
  sig(
    'STRINGMATCHES',
    'string',
    [text('value'), text('pattern', { constant: 'regex' }), text('flags', { ...opt, constant: 'regex-flags' })],
    arrayOf(STRING),
    'every regex match, with optional Java flags',
    'STRINGMATCHES("Hello", "hello", "CASE_INSENSITIVE")',
  ),
  sig(
    'SUBSTRING',
    'string',
    [text('value'), num('start'), num('end', opt), cond('throwIndexOutOfBoundError', opt)],
    STRING,
    'characters from start (inclusive) to end (exclusive)',
    'SUBSTRING("Hello, world!", 0, 5)',
  ),
  sig(
    'TOSTRING',
    'string',
    [any('value')],
    STRING,
    'text of any value (objects as JSON text)',
    'TOSTRING(message.body)',
  ),
  sig('TRIM', 'string', [text('value')], STRING, 'strips leading and trailing blanks', 'TRIM(message.name)'),
  // ── utilities
  sig(
    'BASEENCODE',
    'utilities',
    [text('value'), text('charset', { ...opt, constant: 'charset' })],
    STRING,
    'Base64 (standard, padded)',
    'BASEENCODE("xpto")',
  ),
  sig(
    'BASEDECODE',
    'utilities',
    [text('value'), text('charset', { ...opt, constant: 'charset' })],
    STRING,
    'decodes Base64',
    'BASEDECODE("eHB0bw==")',
  ),
  sig(
    'BASEURLENCODE',
    'utilities',
    [text('value'), text('charset', { ...opt, constant: 'charset' })],
    STRING,
    'URL-safe Base64 without padding',
    'BASEURLENCODE("xpto")',
  ),
  sig(
    'BASEURLDECODE',
    'utilities',
    [text('value'), text('charset', { ...opt, constant: 'charset' })],
    STRING,
    'decodes URL-safe Base64',
    'BASEURLDECODE("eHB0bw")',
  ),
  sig(
    'URIENCODE',
    'utilities',
    [text('value'), text('charset', { ...opt, constant: 'charset' })],
    STRING,
    'form URL encoding (space → +)',
    'URIENCODE("a b&c")',
  ),
  sig(
    'URIDECODE',
    'utilities',
    [text('value'), text('charset', { ...opt, constant: 'charset' })],
    STRING,
    'decodes form URL encoding',
    'URIDECODE("a+b%26c")',
  ),
  sig('UUID', 'utilities', [], STRING, 'random UUID (version 4)', 'UUID()'),
  sig(
    'DECLASSIFY',
    'utilities',
    [any('value')],
    (args) => arg(args, 0),
    'the value itself, declared fit to leave the service although it holds an account value (docs/security.md)',
    'DECLASSIFY(account.partner.client-id)',
    { extra: true },
  ),
  sig(
    'TOBOOLEAN',
    'utilities',
    [any('value')],
    BOOLEAN,
    'true only for true and the text "true" (any case)',
    'TOBOOLEAN(message.flag)',
  ),
  sig(
    'SIZE',
    'utilities',
    [any('value'), cond('throwErrorOnUnexpectedType', opt)],
    INTEGER,
    'length of a string, count of an array, keys of an object',
    'SIZE(message.items)',
  ),
];

function formatDateResult(args: readonly PipeType[]): PipeType {
  const destination = args[2];
  if (destination === undefined || destination.kind === 'null') return STRING;
  if (destination.kind === 'string' && destination.enum) {
    const timestamp = destination.enum.map((v) => v.toLowerCase() === 'timestamp');
    if (timestamp.every(Boolean)) return INTEGER;
    if (!timestamp.some(Boolean)) return STRING;
  }
  return union(STRING, INTEGER);
}

const BY_NAME: ReadonlyMap<string, FunctionSignature> = new Map(SIGNATURES.map((s) => [s.name, s]));

/** Looks a function up case-insensitively. */
export function findSignature(name: string): FunctionSignature | undefined {
  return BY_NAME.get(name.toUpperCase());
}

export const FUNCTION_NAMES: readonly string[] = SIGNATURES.map((s) => s.name);

export function arity(s: FunctionSignature): { readonly min: number; readonly max: number } {
  const required = s.params.filter((p) => !p.optional && !p.rest).length;
  return { min: required, max: s.params.some((p) => p.rest) ? Infinity : s.params.length };
}

/** The parameter an argument position binds to (variadic parameters repeat). */
export function paramAt(s: FunctionSignature, index: number): ParamSpec | undefined {
  if (s.name === 'SWITCHCASE' && index >= 1) return s.params[index % 2 === 1 ? 1 : 2];
  const last = s.params[s.params.length - 1];
  return s.params[index] ?? (last?.rest ? last : undefined);
}

export function resultType(s: FunctionSignature, args: readonly PipeType[]): PipeType {
  return typeof s.result === 'function' ? s.result(args) : s.result;
}
