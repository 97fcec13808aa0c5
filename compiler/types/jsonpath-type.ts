/**
 * JSONPath at build time: a path literal is parsed by the run time's own parser
 * (runtime/jsonpath.ts `compileJsonPath`, which also compiles every filter), then typed against the
 * shape of the value it reads: each field of the path, and each `@.a.b` chain inside a filter (in
 * every `&&` / `||` part), must exist when that shape is closed. The shape of what the path selects
 * types a for-each's elements.
 * In: the path text and the root's shape. Out: findings with offsets into the path text (callers
 * turn them into diagnostics at the literal's span) and the selected shape. Quiet wherever the
 * shape is open or the path is dynamic (`..`, `(…)` scripts, `@parent`, computed members). `@root`
 * chains are checked against the root.
 */
import { JSONPath } from 'jsonpath-plus';
import { compileJsonPath, normalizeJsonPath } from '../../runtime/jsonpath.js';
import { INTEGER, STRING, UNKNOWN, type PipeType } from './pipe-type.js';
import { holdsObject, nearMiss } from './near-miss.js';
import { literalOutsideEnum, type EnumMiss } from './enum-literal.js';

export type JsonPathFinding =
  | {
      readonly kind: 'syntax';
      /** The run time parser's complaint. */
      readonly problem: string;
      readonly start: number;
      readonly end: number;
      /** True when the problem is a `=` written where `==` compares. */
      readonly assignment: boolean;
    }
  | {
      readonly kind: 'field';
      readonly field: string;
      readonly start: number;
      readonly end: number;
      /** The shape that has no such field. */
      readonly owner: PipeType;
    }
  | {
      /**
       * A field an open object does not declare, one slip away from one it does (near-miss.ts):
       * `@.totl` where the shape declares `total`.
       */
      readonly kind: 'near-miss';
      readonly field: string;
      /** The declared name it is a near miss of. */
      readonly declared: string;
      readonly start: number;
      readonly end: number;
      readonly owner: PipeType;
    }
  | {
      /** `@.status == 'shiped'` where the chain's shape allows only other strings (the literal's offsets). */
      readonly kind: 'enum';
      /** The chain as written (`@.status`). */
      readonly chain: string;
      readonly literal: string;
      readonly operator: string;
      readonly start: number;
      readonly end: number;
      readonly miss: EnumMiss;
    };

export interface JsonPathAnalysis {
  readonly findings: readonly JsonPathFinding[];
  /** The shape of each node the path selects (UNKNOWN when it cannot be known). */
  readonly selected: PipeType;
}

export interface JsonPathTypeOptions {
  /** As runtime/jsonpath.ts: `self` (choice, for-each) tests an object itself, `members` its values. */
  readonly objectFilter: 'self' | 'members';
}

/** Parses `source` as the run time will and types it against `root`. */
export function analyzeJsonPath(source: string, root: PipeType, options: JsonPathTypeOptions): JsonPathAnalysis {
  const problem = runtimeProblem(source);
  if (problem !== undefined) {
    const equals = problem.includes('assigns') ? loneEquals(source) : undefined;
    const finding: JsonPathFinding =
      equals !== undefined
        ? { kind: 'syntax', problem, start: equals.start, end: equals.end, assignment: true }
        : { kind: 'syntax', problem, start: 0, end: source.length, assignment: false };
    return { findings: [finding], selected: UNKNOWN };
  }
  const findings: JsonPathFinding[] = [];
  const segments = (JSONPath.toPathArray(normalizeJsonPath(source)) as string[]).slice(1);
  let cursor = Math.max(0, source.search(/[$@]/u) + 1);
  let current: PipeType = root;
  for (const segment of segments) {
    const at = source.indexOf(segment, cursor);
    if (at >= 0) cursor = at + segment.length;
    if (segment === '..' || segment.startsWith('(')) return { findings, selected: UNKNOWN };
    const position = at < 0 ? { start: 0, end: source.length } : { start: at, end: at + segment.length };
    // A string, number or boolean has no members, and an array only elements: the path selects nothing.
    if (segment.startsWith('?(') ? isScalarWithoutMembers(current) : selectsNothing(current, segment)) {
      findings.push({ kind: 'field', field: segment, owner: withoutNull(current), ...position });
      return { findings, selected: UNKNOWN };
    }
    if (segment === '*' || /^-?\d+$/u.test(segment)) {
      current = itemsOf(current);
      continue;
    }
    if (segment.startsWith('?(')) {
      const target = filterTarget(current, options);
      const codeAt = at < 0 ? undefined : at + 2;
      findings.push(...filterFindings(segment.slice(2, -1), codeAt, target, root));
      current = target;
      continue;
    }
    if (segment.includes(':') || segment.includes(',')) {
      current = itemsOf(current);
      continue;
    }
    const next = fieldOf(current, segment, 'path');
    if (next === 'missing') {
      findings.push({ kind: 'field', field: segment, owner: current, ...position });
      return { findings, selected: UNKNOWN };
    }
    if ('nearMiss' in next) {
      findings.push({
        kind: 'near-miss',
        field: segment,
        declared: next.nearMiss,
        owner: withoutNull(current),
        ...position,
      });
      return { findings, selected: UNKNOWN };
    }
    current = next;
  }
  return { findings, selected: current };
}

function runtimeProblem(source: string): string | undefined {
  try {
    compileJsonPath(source);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The first `=` outside quotes that is not part of `==`, `!=`, `<=`, `>=` or `===`. */
function loneEquals(source: string): { start: number; end: number } | undefined {
  const text = blankStrings(source);
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '=') continue;
    const before = text[i - 1] ?? '';
    const after = text[i + 1] ?? '';
    if ('=!<>+-*/%&|'.includes(before) || after === '=') continue;
    return { start: i, end: i + 1 };
  }
  return undefined;
}

/** The text with every quoted string's content replaced by spaces (same length, same offsets). */
function blankStrings(text: string): string {
  let out = '';
  let quote: string | undefined;
  let escaped = false;
  for (const ch of text) {
    if (quote !== undefined) {
      if (!escaped && ch === quote) {
        quote = undefined;
        out += ch;
      } else out += ' '.repeat(ch.length);
      escaped = !escaped && ch === '\\';
    } else {
      if (ch === "'" || ch === '"') quote = ch;
      out += ch;
    }
  }
  return out;
}

function filterTarget(current: PipeType, options: JsonPathTypeOptions): PipeType {
  const type = withoutNull(current);
  if (type.kind === 'array') return type.items;
  if (type.kind === 'object' && options.objectFilter === 'self') return type;
  return UNKNOWN;
}

/** `@` or `@root` followed by members (`.name`, `[0]`, `['name']`); `@parent`, `@property` are not read. */
const CHAIN = /@(root)?(?![\w$])((?:\s*\.\s*[A-Za-z_$][\w$]*|\s*\[\s*(?:\d+|'[^']*'|"[^"]*")\s*\])*)(\s*\()?/gu;
const LINK = /\.\s*([A-Za-z_$][\w$]*)|\[\s*(\d+)\s*\]|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\]/gu;

/**
 * Each `@.a.b` chain of a filter against `target`, each `@root.a.b` against `root` (the member being
 * called, `@.name.includes(…)`, excepted).
 */
function filterFindings(code: string, codeAt: number | undefined, target: PipeType, root: PipeType): JsonPathFinding[] {
  const findings: JsonPathFinding[] = [];
  // Strings are blanked for finding chains (an `@.x` inside a literal is text); names are read from the code.
  const blank = blankStrings(code);
  const compared: { chain: string; literal: string; miss: boolean }[] = [];
  for (const chain of blank.matchAll(CHAIN)) {
    const chainAt = (chain.index ?? 0) + 1 + (chain[1] ?? '').length;
    const members = [...code.slice(chainAt, chainAt + (chain[2] ?? '').length).matchAll(LINK)];
    if (chain[3] !== undefined) members.pop();
    let type: PipeType | undefined = chain[1] === undefined ? target : root;
    for (const link of members) {
      const index = link[2];
      if (index !== undefined) {
        type = itemsOf(type);
        continue;
      }
      const name = (link[1] ?? link[3] ?? link[4]) as string;
      const next = fieldOf(type, name, 'filter');
      if (next === 'missing' || 'nearMiss' in next) {
        const nameAt = chainAt + (link.index ?? 0) + link[0].indexOf(name);
        const position =
          codeAt === undefined ? { start: 0, end: 0 } : { start: codeAt + nameAt, end: codeAt + nameAt + name.length };
        findings.push(
          next === 'missing'
            ? { kind: 'field', field: name, owner: withoutNull(type), ...position }
            : { kind: 'near-miss', field: name, declared: next.nearMiss, owner: withoutNull(type), ...position },
        );
        type = undefined;
        break;
      }
      type = next;
    }
    // A chain with a method call after it (`@.name.includes(…)`) is not the compared value.
    if (type === undefined || chain[3] !== undefined || codeAt === undefined) continue;
    const start = chain.index ?? 0;
    const comparison = comparedLiteral(code, blank, start, start + chain[0].length);
    const miss = comparison && literalOutsideEnum(type, comparison.literal);
    const chainText = code.slice(start, start + chain[0].length).replace(/\s+/gu, '');
    if (comparison) compared.push({ chain: chainText, literal: comparison.literal, miss: miss !== undefined });
    if (comparison && miss) {
      findings.push({
        kind: 'enum',
        chain: code.slice(start, start + chain[0].length).trim(),
        literal: comparison.literal,
        operator: comparison.operator,
        start: codeAt + comparison.start,
        end: codeAt + comparison.end,
        miss,
      });
    }
  }
  // `@.status == 'paid' || @.status == 'PAID'`: another spelling of a value the same chain is also
  // compared with and may hold is a defensive alternative, dead but harmless, not a typo.
  return findings.filter(
    (f) =>
      f.kind !== 'enum' ||
      !compared.some(
        (o) =>
          !o.miss &&
          o.chain === f.chain.replace(/\s+/gu, '') &&
          o.literal !== f.literal &&
          o.literal.toLowerCase() === f.literal.toLowerCase(),
      ),
  );
}

const EQUALITY = '(===?|!==?)';
/** What may stand around a comparison that is a whole operand: `(`, `&&`, `||`, `?`, `:`, `,` or an end. */
const BEFORE_OPERAND = /(?:^|[(,?:]|&&|\|\|)\s*$/u;
const AFTER_OPERAND = /^\s*(?:$|[),?:]|&&|\|\|)/u;
/** `== 'text'` right after a chain; `'text' ==` right before one (both on the blanked code). */
const COMPARED_AFTER = new RegExp(`^\\s*${EQUALITY}\\s*(['"])([^'"]*)\\2`, 'u');
const COMPARED_BEFORE = new RegExp(`(?:^|[(,?:]|&&|\\|\\|)\\s*(['"])([^'"]*)\\1\\s*${EQUALITY}\\s*$`, 'u');

/**
 * The quoted string a chain (code offsets `from`–`to`) is compared with by `==`, `===`, `!=` or
 * `!==`, on either side, when the comparison is a whole operand (`'a' + @.x == 'ab'` is not a
 * comparison of `@.x`). `blank` is the code with string contents blanked. Offsets are the
 * literal's, quotes included; literals with escapes are left alone.
 */
function comparedLiteral(
  code: string,
  blank: string,
  from: number,
  to: number,
): { literal: string; operator: string; start: number; end: number } | undefined {
  const after = COMPARED_AFTER.exec(blank.slice(to));
  if (after && BEFORE_OPERAND.test(blank.slice(0, from))) {
    const start = to + after[0].length - (after[3] ?? '').length - 2;
    const end = to + after[0].length;
    if (AFTER_OPERAND.test(blank.slice(end))) return quoted(code, start, end, after[1] as string);
  }
  const before = COMPARED_BEFORE.exec(blank.slice(0, from));
  if (before && AFTER_OPERAND.test(blank.slice(to))) {
    const start = (before.index ?? 0) + before[0].indexOf(before[1] as string);
    const end = start + (before[2] ?? '').length + 2;
    return quoted(code, start, end, before[3] as string);
  }
  return undefined;
}

function quoted(
  code: string,
  start: number,
  end: number,
  operator: string,
): { literal: string; operator: string; start: number; end: number } | undefined {
  const literal = code.slice(start + 1, end - 1);
  return literal.includes('\\') ? undefined : { literal, operator, start, end };
}

function withoutNull(type: PipeType): PipeType {
  if (type.kind !== 'union') return type;
  const members = type.members.filter((m) => m.kind !== 'null');
  return members.length === 1 ? (members[0] as PipeType) : type;
}

function itemsOf(type: PipeType): PipeType {
  const plain = withoutNull(type);
  return plain.kind === 'array' ? plain.items : UNKNOWN;
}

/** A string, a number or a boolean (never null): JSONPath finds nothing inside it, not even with a filter. */
function isScalarWithoutMembers(type: PipeType): boolean {
  const plain = withoutNull(type);
  return plain.kind === 'string' || plain.kind === 'number' || plain.kind === 'boolean';
}

/**
 * A path segment that certainly selects nothing in `type` (runtime/jsonpath.ts `member`, `pushMembers`,
 * `pushSlice`): every segment of a string, number or boolean; a name other than `length` of an array.
 */
function selectsNothing(type: PipeType, segment: string): boolean {
  if (isScalarWithoutMembers(type)) return true;
  const plain = withoutNull(type);
  if (plain.kind !== 'array') return false;
  if (segment === '*' || segment === 'length' || /^-?\d+$/u.test(segment)) return false;
  return !segment.includes(':') && !segment.includes(',') && !segment.startsWith('?(') && !segment.startsWith('(');
}

/** A read the shape does not declare but is one slip away from a name it does (near-miss.ts). */
export interface NearMissRead {
  readonly nearMiss: string;
}

/**
 * A field's shape where JSONPath reads it: in a path (runtime/jsonpath.ts: only an object's own
 * fields, an array's elements and `length`) or in a filter's `@.a.b` chain
 * (runtime/jsonpath-filter.ts: also a string's `length` and characters). 'missing' only when
 * every possible shape is a closed object without it, or a value that has no such member at all;
 * a near miss when the shape is one open object that declares a name one slip away.
 */
export function fieldOf(type: PipeType, field: string, where: 'path' | 'filter'): PipeType | 'missing' | NearMissRead {
  const plain = withoutNull(type);
  if (plain.kind === 'number' || plain.kind === 'boolean') return 'missing';
  if (plain.kind === 'string') {
    if (where === 'path') return 'missing';
    if (field === 'length') return INTEGER;
    return /^\d+$/u.test(field) ? STRING : 'missing';
  }
  if (plain.kind === 'array') {
    if (field === 'length') return INTEGER;
    if (/^\d+$/u.test(field) || (where === 'path' && /^-\d+$/u.test(field))) return plain.items;
    return 'missing';
  }
  if (plain.kind === 'object') {
    const found = Object.hasOwn(plain.fields, field) ? plain.fields[field] : undefined;
    if (found) return found.type;
    if (!plain.open) return 'missing';
    const declared = plain.freeNames
      ? undefined
      : nearMiss(field, Object.keys(plain.fields), (name) => holdsObject(plain.fields[name]?.type));
    return declared === undefined ? UNKNOWN : { nearMiss: declared };
  }
  if (plain.kind === 'union') {
    const options = plain.members.filter((m) => m.kind !== 'null').map((m) => fieldOf(m, field, where));
    if (options.every((o) => o === 'missing')) return 'missing';
    const found = options.filter((t): t is PipeType => t !== 'missing' && !('nearMiss' in t));
    return found.length === 1 ? (found[0] as PipeType) : UNKNOWN;
  }
  return UNKNOWN;
}
