/**
 * ESCAPE / UNESCAPE formats (JSON, XML, CSV, HTML), as pure text → text functions.
 * JSON follows the JSON string-escape rules (plus `\/`, as Java's escapeJson does);
 * XML and HTML escape the markup characters; CSV quotes a field when it needs quoting.
 */

export const ESCAPE_TYPES = ['JSON', 'XML', 'CSV', 'HTML'] as const;
export type EscapeType = (typeof ESCAPE_TYPES)[number];

const JSON_SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

export function escapeJson(text: string): string {
  return text.replace(
    /["\\/\u0000-\u001f]/g,
    (c) => JSON_SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const JSON_UNESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  "'": "'",
};

/** Removes one level of JSON string escaping; unknown escapes keep their backslash. */
export function unescapeJson(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/gs, (all, code: string) => {
    if (code.length === 5) return String.fromCharCode(parseInt(code.slice(1), 16));
    return JSON_UNESCAPES[code] ?? all;
  });
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '\u00a9',
  reg: '\u00ae',
  euro: '\u20ac',
};

function unescapeEntities(text: string, allowNamed: (name: string) => boolean): string {
  return text.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);/g, (all, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    const named = NAMED_ENTITIES[body];
    return named !== undefined && allowNamed(body) ? named : all;
  });
}

function escapeCsv(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function unescapeCsv(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replace(/""/g, '"');
  return text;
}

export function escapeAs(type: EscapeType, text: string): string {
  switch (type) {
    case 'JSON':
      return escapeJson(text);
    case 'XML':
      return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] as string);
    case 'HTML':
      return text.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c] as string);
    case 'CSV':
      return escapeCsv(text);
  }
}

export function unescapeAs(type: EscapeType, text: string): string {
  switch (type) {
    case 'JSON':
      return unescapeJson(text);
    case 'XML':
      return unescapeEntities(text, (name) => ['amp', 'lt', 'gt', 'quot', 'apos'].includes(name));
    case 'HTML':
      return unescapeEntities(text, () => true);
    case 'CSV':
      return unescapeCsv(text);
  }
}

/** The escape type named by an argument (case-insensitive), or undefined. */
export function escapeTypeOf(name: string): EscapeType | undefined {
  const upper = name.toUpperCase();
  return (ESCAPE_TYPES as readonly string[]).includes(upper) ? (upper as EscapeType) : undefined;
}
