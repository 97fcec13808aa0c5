/**
 * Streams an XML document and hands out, one at a time, the source text of every element at a
 * given path (`catalog/product`: each `<product>` child of the root `<catalog>`), so a document of
 * any size is read in the memory of one record. Only what splitting needs is read here — tags,
 * comments, CDATA, processing instructions — and checked: end tags match their start tags, nothing
 * is left open at the end, nesting stays within `maxDepth`, no DOCTYPE (a DTD could declare
 * entities), a record stays within `maxRecordSize`. Each record is then parsed on its own
 * (fast-xml-parser, in xml.ts), which checks the rest of it.
 *
 * Example: splitting `<c><p id="1"/><p id="2">x</p></c>` at `c/p` yields
 * `{ text: '<p id="1"/>', line: 1 }` and `{ text: '<p id="2">x</p>', line: 1 }`.
 */
import { PipeError } from '../../errors.js';

/** The refusal of a DOCTYPE (also xml.ts's, for a whole document). */
export const DOCTYPE_REFUSED = 'XML with a DOCTYPE is not accepted (DTDs and entity declarations are refused)';

export interface XmlRecord {
  /** The element's source text, from its `<` to the end of its end tag. */
  readonly text: string;
  /** The line its start tag is on (1-based). */
  readonly line: number;
}

export interface SplitOptions {
  /** Element names from the root, `/`-separated. */
  readonly path: string;
  readonly maxDepth: number;
  readonly maxRecordSize: number;
  /** Compare names without their namespace prefix (`o:item` is `item`). */
  readonly stripPrefixes: boolean;
}

/** Splits the text chunks of a document into its records at `path`. */
export async function* splitRecords(chunks: AsyncIterable<string>, options: SplitOptions): AsyncGenerator<XmlRecord> {
  const path = options.path.split('/').filter((p) => p !== '');
  const name = (raw: string): string => (options.stripPrefixes ? raw.slice(raw.indexOf(':') + 1) : raw);
  const stack: string[] = [];
  let buf = '';
  let line = 1;
  let column = 1;
  /** The record being read: its text so far, and the depth of its element. */
  let record: { parts: string[]; size: number; line: number; depth: number } | undefined;

  const fail = (message: string, kind = 'MALFORMED_XML', code = 400): never => {
    throw new PipeError(`Malformed XML: line ${line}, column ${column}: ${message}`, {
      code,
      kind,
      details: { line, column },
    });
  };
  /** Moves past `text`: keeps it when inside a record, counts lines. */
  const consume = (text: string): void => {
    if (record) {
      record.size += text.length;
      if (record.size > options.maxRecordSize) {
        const what = `an XML record (line ${record.line})`;
        throw new PipeError(`${what} is larger than max-size (${options.maxRecordSize} bytes)`, {
          code: 413,
          kind: 'XML_TOO_LARGE',
          details: { line: record.line, maxSize: options.maxRecordSize },
        });
      }
      record.parts.push(text);
    }
    const newline = text.lastIndexOf('\n');
    if (newline < 0) {
      column += text.length;
      return;
    }
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) line++;
    column = text.length - newline;
  };
  const matchesPath = (): boolean => stack.length === path.length && stack.every((n, i) => name(n) === path[i]);

  /** Reads what `buf` holds completely; returns the text left over (an unfinished construct). */
  function* drain(final: boolean): Generator<XmlRecord, string> {
    let at = 0;
    const rest = (): string => buf.slice(at);
    while (at < buf.length) {
      const lt = buf.indexOf('<', at);
      if (lt < 0) {
        consume(buf.slice(at));
        at = buf.length;
        break;
      }
      if (lt > at) {
        consume(buf.slice(at, lt));
        at = lt;
      }
      const closing = (marker: string, from: number): number => {
        const end = buf.indexOf(marker, from);
        return end < 0 ? -1 : end + marker.length;
      };
      let end: number;
      if (buf.startsWith('<!--', at)) end = closing('-->', at + 4);
      else if (buf.startsWith('<![CDATA[', at)) end = closing(']]>', at + 9);
      else if (buf.startsWith('<?', at)) end = closing('?>', at + 2);
      else if (buf.startsWith('<!', at)) {
        if (buf.length - at < 9 && !final) return rest();
        if (/^<!DOCTYPE/i.test(buf.slice(at, at + 9))) {
          throw new PipeError(`${DOCTYPE_REFUSED}: line ${line}, column ${column}`, {
            code: 400,
            kind: 'XML_DOCTYPE_REFUSED',
            details: { line, column },
          });
        }
        if (buf.length - at < 9) end = -1;
        else return fail('unexpected `<!`');
      } else end = tagEnd(buf, at);
      if (end < 0) {
        if (final) fail('the document ends inside a tag, comment or CDATA section');
        return rest();
      }
      const construct = buf.slice(at, end);
      if (construct.startsWith('</')) {
        const closed = /^<\/([^\s>]+)\s*>$/.exec(construct)?.[1];
        const open = stack[stack.length - 1];
        if (closed === undefined) fail('a malformed end tag');
        if (open !== closed) {
          const problem =
            open === undefined ? `the end tag </${closed}> closes nothing` : `expected </${open}>, found </${closed}>`;
          fail(problem);
        }
        consume(construct);
        stack.pop();
        if (record && stack.length === record.depth - 1) {
          yield { text: record.parts.join(''), line: record.line };
          record = undefined;
        }
      } else if (construct.startsWith('<!') || construct.startsWith('<?')) {
        consume(construct);
      } else {
        const opened = /^<([^\s/>]+)/.exec(construct)?.[1];
        if (opened === undefined) fail('a tag without a name');
        const selfClosing = construct.endsWith('/>');
        stack.push(opened as string);
        if (stack.length > options.maxDepth) {
          throw new PipeError(`XML nested deeper than ${options.maxDepth} levels (line ${line})`, {
            code: 400,
            kind: 'XML_TOO_DEEP',
            details: { line, maxDepth: options.maxDepth },
          });
        }
        if (!record && matchesPath()) record = { parts: [], size: 0, line, depth: stack.length };
        consume(construct);
        if (selfClosing) {
          stack.pop();
          if (record && stack.length === record.depth - 1) {
            yield { text: record.parts.join(''), line: record.line };
            record = undefined;
          }
        }
      }
      at = end;
    }
    return rest();
  }

  for await (const chunk of chunks) {
    buf += chunk;
    buf = yield* drain(false);
    if (buf.length > options.maxRecordSize) {
      const what = `a tag, comment or CDATA section (line ${line})`;
      throw new PipeError(`${what} is larger than max-size (${options.maxRecordSize} bytes)`, {
        code: 413,
        kind: 'XML_TOO_LARGE',
        details: { line, maxSize: options.maxRecordSize },
      });
    }
  }
  buf = yield* drain(true);
  if (stack.length > 0) fail(`the document ends with <${stack[stack.length - 1] ?? ''}> still open`);
}

/** The index just past the `>` that ends the start tag at `from` (quoted `>` skipped); -1 when not in `buf` yet. */
function tagEnd(buf: string, from: number): number {
  let quote = '';
  for (let i = from + 1; i < buf.length; i++) {
    const c = buf[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i + 1;
  }
  return -1;
}
