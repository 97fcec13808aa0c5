/**
 * The meaning of an `expect …` line of a test block: its words and values (read from the CST by
 * ./tests.ts) → an Expectation of ast.ts, or the problem to report and where. Pure; no CST.
 */
import type { Expectation, MatchMode, Value } from '../ast.js';
import type { Span } from '../../../base/source/span.js';

/** One word or value after `expect WHAT`, before it is given a meaning. */
export type ExpectPart =
  | { readonly kind: 'word'; readonly text: string; readonly span: Span }
  | { readonly kind: 'value'; readonly value: Value; readonly span: Span };

/** The form of each expectation, shown when one is malformed. */
export const EXPECTATION_FORMS: Readonly<Record<string, string>> = {
  output: 'expect output [contains] VALUE',
  error: 'expect error [contains] VALUE',
  status: 'expect status CODE',
  step: 'expect step LABEL [contains] VALUE',
  branch: 'expect branch "CONDITION" | NAME | otherwise',
  published: 'expect published EVENT [N times] [with VALUE]',
  called: 'expect called LABEL [N times] [with VALUE]',
};

type ReadResult =
  | { readonly ok: true; readonly value: Expectation }
  | { readonly ok: false; readonly problem: string; readonly at?: Span };

function fail(problem: string, at?: Span): ReadResult {
  return { ok: false, problem, ...(at ? { at } : {}) };
}

/** `[contains] VALUE` at the end of an expectation. */
function readMatch(parts: readonly ExpectPart[]): { match: MatchMode; value: Value } | { problem: string; at?: Span } {
  const [first, second, third] = parts;
  const contains = first?.kind === 'word' && first.text === 'contains';
  const valuePart = contains ? second : first;
  const extra = contains ? third : second;
  if (!valuePart) return { problem: 'expected a value' };
  if (valuePart.kind !== 'value') return { problem: 'expected a value', at: valuePart.span };
  if (extra) return { problem: 'unexpected after the value', at: extra.span };
  return { match: contains ? 'contains' : 'equal', value: valuePart.value };
}

/** `[N times | never] [with VALUE]` after `published EVENT` / `called LABEL`. */
function readCount(parts: readonly ExpectPart[]): { times?: number; with?: Value } | { problem: string; at?: Span } {
  let i = 0;
  let times: number | undefined;
  const at = parts[i];
  if (at?.kind === 'word' && at.text === 'never') {
    times = 0;
    i += 1;
  } else if (at?.kind === 'value' && at.value.kind === 'number') {
    const next = parts[i + 1];
    if (!Number.isInteger(at.value.value) || at.value.value < 0)
      return { problem: 'a count is a whole number', at: at.span };
    if (next?.kind !== 'word' || (next.text !== 'times' && next.text !== 'time'))
      return { problem: 'expected `times` after the count', at: next?.span ?? at.span };
    times = at.value.value;
    i += 2;
  }
  let withValue: Value | undefined;
  const w = parts[i];
  if (w?.kind === 'word' && w.text === 'with') {
    const value = parts[i + 1];
    if (value?.kind !== 'value') return { problem: 'expected a value after `with`', at: value?.span ?? w.span };
    withValue = value.value;
    i += 2;
  }
  const extra = parts[i];
  if (extra) return { problem: 'unexpected here', at: extra.span };
  return { ...(times !== undefined ? { times } : {}), ...(withValue ? { with: withValue } : {}) };
}

/** A condition as written (`"$.a"`, `"{{ x > 1 }}"`, `{{ x > 1 }}`), or undefined for other values. */
function conditionText(value: Value): string | undefined {
  if (value.kind === 'string') return value.value;
  if (value.kind === 'braces') return `{{${value.text}}}`;
  if (value.kind === 'template')
    return value.parts.map((part) => (part.kind === 'text' ? part.value : `{{${part.text}}}`)).join('');
  return undefined;
}

export function readExpectation(what: string, parts: readonly ExpectPart[], span: Span): ReadResult {
  const [head, ...rest] = parts;
  switch (what) {
    case 'output':
    case 'error': {
      const read = readMatch(parts);
      if ('problem' in read) return fail(read.problem, read.at);
      return { ok: true, value: { kind: what, match: read.match, value: read.value, span } };
    }
    case 'status': {
      const value = head?.kind === 'value' ? head.value : undefined;
      if (
        !head ||
        value?.kind !== 'number' ||
        !Number.isInteger(value.value) ||
        value.value < 100 ||
        value.value > 599
      ) {
        return fail('expected an HTTP status from 100 to 599', head?.span);
      }
      if (rest[0]) return fail('unexpected after the status', rest[0].span);
      return { ok: true, value: { kind: 'status', status: value.value, statusSpan: head.span, span } };
    }
    case 'step': {
      if (head?.kind !== 'word') return fail('expected a step label', head?.span);
      const read = readMatch(rest);
      if ('problem' in read) return fail(read.problem, read.at ?? head.span);
      return {
        ok: true,
        value: { kind: 'step', label: head.text, labelSpan: head.span, match: read.match, value: read.value, span },
      };
    }
    case 'branch': {
      const name = head?.kind === 'word' ? head.text : head?.kind === 'value' ? conditionText(head.value) : undefined;
      if (!head || name === undefined)
        return fail('expected a condition as written, a branch name or `otherwise`', head?.span);
      if (rest[0]) return fail('unexpected after the branch', rest[0].span);
      return { ok: true, value: { kind: 'branch', branch: name, branchSpan: head.span, span } };
    }
    case 'published':
    case 'called': {
      const name =
        head?.kind === 'word'
          ? head.text
          : head?.kind === 'value' && head.value.kind === 'string'
            ? head.value.value
            : undefined;
      if (!head || name === undefined)
        return fail(what === 'published' ? 'expected an event name' : 'expected a step label', head?.span);
      const read = readCount(rest);
      if ('problem' in read) return fail(read.problem, read.at);
      const count = {
        ...(read.times !== undefined ? { times: read.times } : {}),
        ...(read.with ? { with: read.with } : {}),
      };
      return what === 'published'
        ? { ok: true, value: { kind: 'published', event: name, eventSpan: head.span, ...count, span } }
        : { ok: true, value: { kind: 'called', label: name, labelSpan: head.span, ...count, span } };
    }
    default:
      return fail('unknown expectation');
  }
}
