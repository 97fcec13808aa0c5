/**
 * JSONPath filter and script expressions (`[?(@.total < 500 && @.tags.includes('vip'))]`),
 * parsed once by jsep (through jsonpath-plus) and compiled here into closures, so a filter costs
 * a few property reads per node instead of an AST walk with a fresh sandbox per node.
 *
 * A small, safe subset of JavaScript: literals, `@` and its members, `@parent`, `@property`,
 * `@root`, comparison, arithmetic and logical operators, `?:`, array literals, and a few string and
 * array methods that take no pattern (`includes`, `startsWith`, `indexOf`, `toLowerCase`, …).
 * Members are own properties only (plus `length`), so nothing reaches a prototype; a member of a
 * missing value is undefined (Jayway: no match, no error). Methods that would run a JavaScript
 * regular expression (`match`, `replace`, `split`, `search`) or allocate without bound (`repeat`,
 * `padStart`) are refused when the path is compiled. Jayway's `=~` (`@.name =~ /cat.+/i`) matches
 * the whole string against the pattern (Java's `matches()`), run on RE2 (linear time). Jayway's word
 * operators `in`, `nin`, `subsetof`, `anyof`, `noneof`, `size` and `empty` (`@.status in ['NEW','PAID']`,
 * `@.items size 2`, `@.tags empty false`) compare as Jayway's EvaluatorFactory does (see `wordRelation`).
 */
import { JSONPath } from 'jsonpath-plus';
import { compileRegex, regexFlagNames } from './regex/index.js';
import { tick } from './work-meter.js';

/** What an expression sees: the node, its parent and key, the document (one object per query, refilled per node). */
export interface FilterScope {
  v: unknown;
  parent: unknown;
  property: string | number | undefined;
  root: unknown;
}

export type CompiledExpression = (scope: FilterScope) => unknown;

interface JsepNode {
  readonly type: string;
  readonly [key: string]: unknown;
}

type JsepParser = new (code: string) => { readonly ast: JsepNode };
const parseWithJsep = (JSONPath as unknown as { prototype: { safeVm: { Script: JsepParser } } }).prototype.safeVm
  .Script;

const STRING_METHODS = new Set([
  'includes',
  'startsWith',
  'endsWith',
  'indexOf',
  'lastIndexOf',
  'toLowerCase',
  'toUpperCase',
  'trim',
  'trimStart',
  'trimEnd',
  'slice',
  'substring',
  'charAt',
  'at',
]);
const ARRAY_METHODS = new Set(['includes', 'indexOf', 'lastIndexOf', 'at']);

const SCOPE_NAMES: Readonly<Record<string, (scope: FilterScope) => unknown>> = {
  _$_v: (s) => s.v,
  _$_parent: (s) => s.parent,
  _$_property: (s) => s.property,
  _$_parentProperty: () => undefined,
  _$_root: (s) => s.root,
  undefined: () => undefined,
};

const hasOwn = Object.prototype.hasOwnProperty;

/** Compiles a filter written with `@` (already rewritten to `_$_v` & co.); throws on what it does not support. */
export function compileExpression(code: string): CompiledExpression {
  let ast: JsepNode;
  try {
    // Patterns first: a `/…/` may hold a word such as ` in `, which is not an operator there.
    ast = new parseWithJsep(withWordOperators(withRegexMatches(code))).ast;
  } catch (err) {
    throw new Error(err instanceof Error ? err.message : String(err));
  }
  return compileNode(ast);
}

/** What `=~ /pattern/flags` becomes before parsing (JavaScript has no `=~`): `== '<marker>'`, the marker holding both. */
const REGEX_MARKER = /^@@pipec-regex:([A-Za-z0-9_-]*)@@$/u;

/**
 * Rewrites each `=~ /pattern/flags` outside quotes into `== '@@pipec-regex:…@@'` (pattern and flags
 * encoded in the marker), which `binary` turns back into a whole-string match. Throws on a `=~`
 * without a `/…/` pattern after it.
 */
function withRegexMatches(code: string): string {
  if (!code.includes('=~')) return code;
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i] as string;
    if (quote !== undefined) {
      out += ch;
      if (ch === '\\') out += code[++i] ?? '';
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    if (ch !== '=' || code[i + 1] !== '~') {
      out += ch;
      continue;
    }
    let at = i + 2;
    while (code[at] === ' ') at++;
    if (code[at] !== '/') throw new Error('`=~` takes a pattern between slashes: `@.name =~ /cat.*/i`');
    let pattern = '';
    let inClass = false;
    for (at++; at < code.length; at++) {
      const c = code[at] as string;
      if (c === '\\') {
        pattern += c + (code[at + 1] ?? '');
        at++;
        continue;
      }
      if (c === '/' && !inClass) break;
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      pattern += c;
    }
    if (at >= code.length) throw new Error('the pattern after `=~` has no closing `/`');
    let flags = '';
    while (/[a-z]/u.test(code[at + 1] ?? '')) flags += code[++at];
    out += `== '@@pipec-regex:${Buffer.from(JSON.stringify([pattern, flags])).toString('base64url')}@@'`;
    i = at;
  }
  return out;
}

/** Jayway's filter operators spelled as words (its README's table of filter operators). */
const WORD_OPERATORS = new Set(['in', 'nin', 'subsetof', 'anyof', 'noneof', 'size', 'empty']);
type WordOperator = 'in' | 'nin' | 'subsetof' | 'anyof' | 'noneof' | 'size' | 'empty';

/** What `left in right` becomes before parsing: `left < '<marker>' < right` (relational precedence, as in Jayway). */
const WORD_MARKER = /^@@pipec-op:([a-z]+)@@$/u;

const WORD_EXAMPLES: Readonly<Record<WordOperator, string>> = {
  in: "@.status in ['NEW','PAID']",
  nin: "@.status nin ['NEW','PAID']",
  subsetof: "@.tags subsetof ['a','b']",
  anyof: "@.tags anyof ['a','b']",
  noneof: "@.tags noneof ['a','b']",
  size: '@.items size 2',
  empty: '@.tags empty false',
};

function misplacedWord(word: WordOperator): string {
  return `\`${word}\` needs a value on each side: \`${WORD_EXAMPLES[word]}\``;
}

/**
 * Rewrites each word operator outside quotes into `< '@@pipec-op:word@@' <`, which `compileNode`
 * turns back into the operator. A word is an operator only where an operand has just ended (after
 * a name, a number, `)`, `]` or a quote, spaces allowed) and it is a whole word: `@.index`,
 * `@.sizeLimit`, `@.in`, `@['in']` and `'in'` are left alone. Throws on a word operator with
 * nothing after it.
 */
function withWordOperators(code: string): string {
  if (!/(?:in|of|size|empty)\b/u.test(code)) return code;
  let out = '';
  let quote: string | undefined;
  let lastSignificant = '';
  for (let i = 0; i < code.length; i++) {
    const ch = code[i] as string;
    if (quote !== undefined) {
      out += ch;
      if (ch === '\\') out += code[++i] ?? '';
      else if (ch === quote) {
        quote = undefined;
        lastSignificant = ch;
      }
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
      continue;
    }
    if (!/[A-Za-z_$]/u.test(ch) || /[\w$]/u.test(code[i - 1] ?? '')) {
      out += ch;
      if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') lastSignificant = ch;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/u.exec(code.slice(i))?.[0] ?? ch;
    const afterOperand = /[\w$)\]'"]/u.test(lastSignificant);
    if (WORD_OPERATORS.has(word) && afterOperand) {
      const rest = code.slice(i + word.length).trimStart();
      if (rest === '' || /^[)\]},]|^&&|^\|\|/u.test(rest)) throw new Error(misplacedWord(word as WordOperator));
      out += ` < '@@pipec-op:${word}@@' < `;
      lastSignificant = '<';
    } else {
      out += word;
      lastSignificant = word.slice(-1);
    }
    i += word.length - 1;
  }
  return out;
}

/* eslint-disable eqeqeq -- Jayway's list operators compare items as its `==` does, JavaScript's `==` here */
/** Whether `list` holds an item `==` to `value`; a missing value is in no list (Jayway's UNDEFINED equals nothing). */
function holds(list: readonly unknown[], value: unknown): boolean {
  if (value === undefined) return false;
  tick(1 + (list.length >> 3));
  for (const item of list) if (item == value) return true;
  return false;
}
/* eslint-enable eqeqeq */

/** The length Jayway's `size` and `empty` read: a string's or an array's; undefined for anything else. */
function lengthOf(value: unknown): number | undefined {
  return typeof value === 'string' || Array.isArray(value) ? value.length : undefined;
}

/**
 * Jayway's word relations (EvaluatorFactory): a side that should be an array and is not (missing
 * included) makes the relation false — so `nin`, the negation of `in`, is then true, as in Jayway.
 */
function wordRelation(word: WordOperator, left: unknown, right: unknown): boolean {
  switch (word) {
    case 'in':
      return Array.isArray(right) && holds(right, left);
    case 'nin':
      return !(Array.isArray(right) && holds(right, left));
    case 'subsetof':
      return Array.isArray(left) && Array.isArray(right) && left.every((item) => holds(right, item));
    case 'anyof':
      return Array.isArray(left) && Array.isArray(right) && left.some((item) => holds(right, item));
    case 'noneof':
      return Array.isArray(left) && Array.isArray(right) && !left.some((item) => holds(right, item));
    case 'size':
      // Jayway reads the expected size as an int (`intValue()`), so 2.7 means 2.
      return typeof right === 'number' && lengthOf(left) === Math.trunc(right);
    case 'empty':
      return typeof right === 'boolean' && lengthOf(left) !== undefined && (lengthOf(left) === 0) === right;
  }
}

/** What a literal on the right of each word operator must be (a path or an expression is checked when evaluated). */
function checkWordRight(word: WordOperator, right: JsepNode): void {
  if (right.type !== 'Literal') return;
  const value = right['value'];
  const fits = word === 'size' ? typeof value === 'number' : word === 'empty' ? typeof value === 'boolean' : false;
  if (fits) return;
  const wanted = word === 'size' ? 'a number' : word === 'empty' ? '`true` or `false`' : 'an array';
  throw new Error(`\`${word}\` takes ${wanted} on its right: \`${WORD_EXAMPLES[word]}\``);
}

/** `left < '@@pipec-op:word@@' < right` (see `withWordOperators`) as the word operator, or undefined. */
function wordOperatorOf(node: JsepNode): { word: WordOperator; left: JsepNode; right: JsepNode } | undefined {
  if (node.type !== 'BinaryExpression' || node['operator'] !== '<') return undefined;
  const inner = node['left'] as JsepNode;
  if (inner.type !== 'BinaryExpression' || inner['operator'] !== '<') return undefined;
  const marker = inner['right'] as JsepNode;
  if (marker.type !== 'Literal' || typeof marker['value'] !== 'string') return undefined;
  const word = WORD_MARKER.exec(marker['value'])?.[1];
  if (word === undefined || !WORD_OPERATORS.has(word)) return undefined;
  return { word: word as WordOperator, left: inner['left'] as JsepNode, right: node['right'] as JsepNode };
}

/** `left =~ /pattern/flags`: the whole string matches (Jayway's `=~`, Java's `matches()`); not a string → false. */
function regexMatch(left: CompiledExpression, marker: string): CompiledExpression | undefined {
  const encoded = REGEX_MARKER.exec(marker)?.[1];
  if (encoded === undefined) return undefined;
  const [pattern, flags] = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as [string, string];
  const unknown = flags.replace(/[ims]/gu, '');
  if (unknown !== '') throw new Error(`the flags \`${unknown}\` of a \`=~\` pattern are not supported (i, m, s are)`);
  const re = compileRegex(`^(?:${pattern})$`, 'ecmascript', regexFlagNames(flags));
  return (s) => {
    const value = left(s);
    if (typeof value !== 'string') return false;
    tick(1 + (value.length >> 6));
    return re.test(value);
  };
}

/** A member of a JSON value: own properties, array indices, `length`; undefined for anything else. */
function member(object: unknown, key: unknown): unknown {
  if (object === null || object === undefined) return undefined;
  const name = String(key);
  if (typeof object === 'string') {
    if (name === 'length') return object.length;
    return /^\d+$/.test(name) ? object[Number(name)] : undefined;
  }
  if (typeof object !== 'object') return undefined;
  if (Array.isArray(object) && name === 'length') return object.length;
  return hasOwn.call(object, name) ? (object as Record<string, unknown>)[name] : undefined;
}

function callMethod(receiver: unknown, method: string, args: readonly unknown[]): unknown {
  if (typeof receiver === 'string' && STRING_METHODS.has(method)) {
    tick(1 + (receiver.length >> 6));
    return (String.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[method]?.apply(
      receiver,
      args as unknown[],
    );
  }
  if (Array.isArray(receiver) && ARRAY_METHODS.has(method)) {
    tick(1 + receiver.length);
    return (Array.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[method]?.apply(
      receiver,
      args as unknown[],
    );
  }
  return undefined;
}

/* eslint-disable eqeqeq -- the filters' `==` is JavaScript's, as it was with jsonpath-plus */
/** One closure per operator, so that evaluating `@.a == 1` makes no closure per node. */
function binary(operator: string, left: CompiledExpression, right: CompiledExpression): CompiledExpression {
  type N = number;
  switch (operator) {
    case '||':
      return (s) => left(s) || right(s);
    case '&&':
      return (s) => left(s) && right(s);
    case '??':
      return (s) => left(s) ?? right(s);
    case '==':
      return (s) => left(s) == right(s);
    case '!=':
      return (s) => left(s) != right(s);
    case '===':
      return (s) => left(s) === right(s);
    case '!==':
      return (s) => left(s) !== right(s);
    case '<':
      return (s) => (left(s) as N) < (right(s) as N);
    case '>':
      return (s) => (left(s) as N) > (right(s) as N);
    case '<=':
      return (s) => (left(s) as N) <= (right(s) as N);
    case '>=':
      return (s) => (left(s) as N) >= (right(s) as N);
    case '+':
      return (s) => (left(s) as N) + (right(s) as N);
    case '-':
      return (s) => (left(s) as N) - (right(s) as N);
    case '*':
      return (s) => (left(s) as N) * (right(s) as N);
    case '/':
      return (s) => (left(s) as N) / (right(s) as N);
    case '%':
      return (s) => (left(s) as N) % (right(s) as N);
    default:
      throw new Error(`the operator \`${operator}\` is not supported`);
  }
}
/* eslint-enable eqeqeq */

const UNARY: Readonly<Record<string, (a: unknown) => unknown>> = {
  '!': (a) => !a,
  '-': (a) => -(a as number),
  '+': (a) => +(a as number),
  typeof: (a) => typeof a,
};

function compileNode(node: JsepNode): CompiledExpression {
  switch (node.type) {
    case 'Literal': {
      const value = node['value'];
      const misplaced = typeof value === 'string' ? WORD_MARKER.exec(value)?.[1] : undefined;
      if (misplaced !== undefined) throw new Error(misplacedWord(misplaced as WordOperator));
      return () => value;
    }
    case 'Identifier': {
      const name = String(node['name']);
      const read = hasOwn.call(SCOPE_NAMES, name) ? SCOPE_NAMES[name] : undefined;
      if (!read && WORD_OPERATORS.has(name)) throw new Error(misplacedWord(name as WordOperator));
      if (!read)
        throw new Error(`unknown name \`${name}\` (filters read \`@\`, \`@parent\`, \`@property\` and \`@root\`)`);
      return read;
    }
    case 'MemberExpression': {
      const object = compileNode(node['object'] as JsepNode);
      const property = node['property'] as JsepNode;
      if (node['computed']) {
        const key = compileNode(property);
        return (s) => member(object(s), key(s));
      }
      const name = String(property['name']);
      return (s) => member(object(s), name);
    }
    case 'CallExpression': {
      const callee = node['callee'] as JsepNode;
      const method =
        callee.type === 'MemberExpression' && !callee['computed']
          ? String((callee['property'] as JsepNode)['name'])
          : undefined;
      // Jayway's `length()` (`[?(@.name.length() > 3)]`): the length of a string or an array.
      if (method === 'length' && (node['arguments'] as JsepNode[]).length === 0) {
        const receiver = compileNode(callee['object'] as JsepNode);
        return (s) => {
          const value = receiver(s);
          return typeof value === 'string' || Array.isArray(value) ? value.length : undefined;
        };
      }
      if (method === undefined || (!STRING_METHODS.has(method) && !ARRAY_METHODS.has(method))) {
        throw new Error(`calls are limited to the methods ${[...STRING_METHODS].join(', ')} and length()`);
      }
      const receiver = compileNode(callee['object'] as JsepNode);
      const args = (node['arguments'] as JsepNode[]).map(compileNode);
      return (s) =>
        callMethod(
          receiver(s),
          method,
          args.map((a) => a(s)),
        );
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const relation = wordOperatorOf(node);
      if (relation) {
        checkWordRight(relation.word, relation.right);
        const { word } = relation;
        const left = compileNode(relation.left);
        const right = compileNode(relation.right);
        return (s) => wordRelation(word, left(s), right(s));
      }
      const right = node['right'] as JsepNode;
      if (node['operator'] === '==' && right.type === 'Literal' && typeof right['value'] === 'string') {
        const match = regexMatch(compileNode(node['left'] as JsepNode), right['value']);
        if (match) return match;
      }
      return binary(
        String(node['operator']),
        compileNode(node['left'] as JsepNode),
        compileNode(node['right'] as JsepNode),
      );
    }
    case 'UnaryExpression': {
      const operator = String(node['operator']);
      const apply = hasOwn.call(UNARY, operator) ? UNARY[operator] : undefined;
      if (!apply) throw new Error(`the operator \`${operator}\` is not supported`);
      const argument = compileNode(node['argument'] as JsepNode);
      return (s) => apply(argument(s));
    }
    case 'ConditionalExpression': {
      const test = compileNode(node['test'] as JsepNode);
      const consequent = compileNode(node['consequent'] as JsepNode);
      const alternate = compileNode(node['alternate'] as JsepNode);
      return (s) => (test(s) ? consequent(s) : alternate(s));
    }
    case 'ArrayExpression': {
      const elements = (node['elements'] as JsepNode[]).map(compileNode);
      return (s) => elements.map((e) => e(s));
    }
    case 'Compound': {
      const body = (node['body'] as JsepNode[]).map(compileNode);
      if (body.length === 0) throw new Error('an empty expression');
      return (s) => {
        let last: unknown;
        for (const part of body) last = part(s);
        return last;
      };
    }
    case 'AssignmentExpression':
      throw new Error(`\`${String(node['operator'])}\` assigns; a filter compares with \`==\``);
    default:
      throw new Error(`${node.type} is not supported in a filter`);
  }
}
