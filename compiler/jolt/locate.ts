/**
 * Spans of keys and values inside a JSON (or JSON-with-comments) text, by JSON path, so that JOLT
 * diagnostics for a standalone spec file (`pipec jolt SPEC.json`) point at the offending key. Input:
 * the text; output: a `Locate`. Unknown paths fall back to the nearest known ancestor.
 */
import type { Span } from '../../base/source/span.js';
import type { JsonPath, Locate } from './emit.js';

interface Spans {
  key?: [number, number];
  value?: [number, number];
}

/** Builds a Locate over `text` (the spans are offsets in `text`, reported in `file`). */
export function locateInJson(file: string, text: string): Locate {
  const table = new Map<string, Spans>();
  try {
    scanValue(text, skip(text, 0), [], table, 0);
  } catch {
    // a text that does not scan still gets the whole-file fallback below
  }
  return (path, part) => {
    for (let n = path.length; n >= 0; n--) {
      const spans = table.get(pathKey(path.slice(0, n)));
      const range = (n === path.length && part === 'key' ? spans?.key : undefined) ?? spans?.value ?? spans?.key;
      if (range) return span(file, range);
    }
    return { file, start: 0, end: Math.min(text.length, 1) };
  };
}

function span(file: string, [start, end]: [number, number]): Span {
  return { file, start, end };
}

function pathKey(path: JsonPath): string {
  return JSON.stringify(path);
}

/** Skips whitespace and comments. */
function skip(text: string, i: number): number {
  for (;;) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}

function scanString(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text.charAt(j) !== '"') j += text.charAt(j) === '\\' ? 2 : 1;
  return j + 1;
}

/** Scans the value at `i`, records its span under `path`; returns the index after it. */
function scanValue(text: string, i: number, path: JsonPath, table: Map<string, Spans>, depth: number): number {
  if (depth > 1000) throw new Error('too deep');
  const start = i;
  const c = text.charAt(i);
  let end: number;
  if (c === '{' || c === '[') {
    const close = c === '{' ? '}' : ']';
    let j = skip(text, i + 1);
    let index = 0;
    while (j < text.length && text.charAt(j) !== close) {
      let childPath: JsonPath;
      if (c === '{') {
        const keyEnd = scanString(text, j);
        const key = JSON.parse(text.slice(j, keyEnd)) as string;
        childPath = [...path, key];
        table.set(pathKey(childPath), { key: [j, keyEnd] });
        j = skip(text, keyEnd);
        j = skip(text, j + 1); // the colon
      } else childPath = [...path, index++];
      j = skip(text, scanValue(text, j, childPath, table, depth + 1));
      if (text.charAt(j) === ',') j = skip(text, j + 1);
    }
    end = j + 1;
  } else if (c === '"') end = scanString(text, i);
  else {
    let j = i;
    while (j < text.length && /[^\s,}\]]/.test(text.charAt(j))) j++;
    end = j;
  }
  const existing = table.get(pathKey(path)) ?? {};
  existing.value = [start, end];
  table.set(pathKey(path), existing);
  return end;
}
