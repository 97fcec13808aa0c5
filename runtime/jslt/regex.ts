/**
 * Java regular expressions (as used by `test`, `capture`, `split`, `replace`) on JS RegExp.
 * Input: Java pattern text. Output: a compiled RegExp (cached), or a PipeError whose message
 * contains "regular expression". The common Java-only forms are translated: leading inline flags
 * `(?i)` `(?s)` `(?m)` `(?x)`-less, `\A` `\z` `\Z`, possessive quantifiers and atomic groups
 * (run as ordinary greedy ones), and the POSIX classes `\p{Alpha}` and friends.
 * Safety: patterns and subject strings are size-limited, since JS RegExp has no time limit.
 */
import { jsltError } from './values.js';

export const MAX_PATTERN_LENGTH = 2_000;
export const MAX_SUBJECT_LENGTH = 1_000_000;
const CACHE_LIMIT = 500;
const cache = new Map<string, RegExp>();

const POSIX_CLASSES: Record<string, string> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: ' \\t\\n\\x0B\\f\\r',
};

/** Translates Java syntax to JS syntax; returns the JS source and flags. */
export function translateJavaRegex(pattern: string): { source: string; flags: string } {
  let flags = '';
  let rest = pattern;
  const inline = /^\(\?([imsux]+)\)/.exec(rest);
  if (inline) {
    for (const flag of inline[1] as string) if ('ims'.includes(flag) && !flags.includes(flag)) flags += flag;
    rest = rest.slice(inline[0].length);
  }
  let out = '';
  let inClass = false;
  for (let pos = 0; pos < rest.length; pos++) {
    const char = rest[pos] as string;
    if (char === '\\') {
      const next = rest[pos + 1];
      if (next === undefined) throw new SyntaxError('Unexpected end of pattern after \\');
      if (next === 'p' || next === 'P') {
        const name = /^\{(?:Is)?([A-Za-z]+)\}/.exec(rest.slice(pos + 2));
        const range = name ? POSIX_CLASSES[name[1] as string] : undefined;
        if (!name || range === undefined) throw new SyntaxError(`Unsupported character class near index ${pos}`);
        const negate = next === 'P';
        out += inClass ? (negate ? '' : range) : `[${negate ? '^' : ''}${range}]`;
        pos += 1 + name[0].length;
        continue;
      }
      if (!inClass && next === 'A') out += '^';
      else if (!inClass && next === 'z') out += '$(?![\\s\\S])';
      else if (!inClass && next === 'Z') out += '(?=\\n?$(?![\\s\\S]))';
      else if (next === 'h') out += inClass ? ' \\t\\xA0' : '[ \\t\\xA0]';
      else if (next === 'Q') {
        const end = rest.indexOf('\\E', pos + 2);
        const literal = rest.slice(pos + 2, end === -1 ? rest.length : end);
        out += literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
        pos = end === -1 ? rest.length : end + 1;
        continue;
      } else out += char + next;
      pos++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      if (rest[pos + 1] === '^') out += rest[++pos];
      if (rest[pos + 1] === ']') out += `\\${rest[++pos]}`;
      continue;
    }
    // possessive quantifiers (`a*+`) behave like greedy ones for matching purposes
    if (char === '+' && pos > 0 && '*+?}'.includes(rest[pos - 1] as string) && rest[pos - 2] !== '\\') continue;
    if (char === '(' && rest.startsWith('(?>', pos)) {
      out += '(?:';
      pos += 2;
      continue;
    }
    out += char;
  }
  return { source: out, flags };
}

/** Compiles (and caches) a Java-syntax regular expression. */
export function javaRegex(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw jsltError(`Syntax error in regular expression: pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  let compiled: RegExp;
  try {
    const { source, flags } = translateJavaRegex(pattern);
    compiled = new RegExp(source, flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw jsltError(`Syntax error in regular expression '${pattern}': ${reason}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

/** A fresh global copy for iterating over matches (the cached one stays stateless). */
export function globalRegex(pattern: string): RegExp {
  const base = javaRegex(pattern);
  return new RegExp(base.source, base.flags + 'g');
}

export function checkSubject(text: string, functionName: string): string {
  if (text.length > MAX_SUBJECT_LENGTH) {
    throw jsltError(`${functionName}(): input longer than ${MAX_SUBJECT_LENGTH} characters`);
  }
  return text;
}

/** Names of the named groups, sorted (the order `capture` reports them in). */
export function namedGroups(pattern: string): string[] {
  const names = new Set<string>();
  for (const match of pattern.matchAll(/\(\?<([a-zA-Z][a-zA-Z0-9]*)>/g)) names.add(match[1] as string);
  return [...names].sort();
}

/** Java's String.split: no leading empty part from a zero-width match, trailing empties removed. */
export function javaSplit(text: string, pattern: string): string[] {
  const regex = globalRegex(pattern);
  const parts: string[] = [];
  let last = 0;
  let found = false;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const width = match[0].length;
    if (width === 0) {
      regex.lastIndex++;
      if (match.index === 0 || match.index >= text.length) continue;
    }
    found = true;
    parts.push(text.slice(last, match.index));
    last = match.index + width;
  }
  if (!found) return [text];
  parts.push(text.slice(last));
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
