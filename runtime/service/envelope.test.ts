import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  decodeUtf8Strictly,
  excessiveDepthAt,
  headersRecord,
  headersRecordFromRaw,
  headersRecordOf,
  parseFormFields,
  parseJsonText,
  parseMediaType,
  parseRequestBody,
  pathAndQuery,
  queryAndPathRecord,
  readIncomingLimited,
} from './envelope.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('envelope helpers', () => {
  it('measures nesting outside strings only', () => {
    expect(excessiveDepthAt('[[1]]', 2)).toBe(-1);
    expect(excessiveDepthAt('[[[1]]]', 2)).toBe(2);
    expect(excessiveDepthAt('["[[[[\\"[[["]', 2)).toBe(-1);
  });

  it('parses JSON and reports syntax errors as 400', () => {
    expect(parseJsonText('  ')).toBeNull();
    expect(parseJsonText('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(() => parseJsonText('{"a" 1}')).toThrow(expect.objectContaining({ code: 400 }) as Error);
  });

  it('reads media types and charsets', () => {
    expect(parseMediaType('Application/JSON; charset="UTF-8"')).toEqual({ type: 'application/json', charset: 'utf-8' });
    expect(parseMediaType(null)).toEqual({ type: '', charset: undefined });
  });

  it('parses bodies by content type', () => {
    expect(parseRequestBody(bytes('{"a":1}'), 'application/vnd.api+json')).toEqual({ a: 1 });
    expect(parseRequestBody(bytes('caf\xe9'.replace('\xe9', 'é')), 'text/plain')).toBe('café');
    expect(parseRequestBody(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=latin1')).toBe('café');
    expect(parseRequestBody(new Uint8Array(0), 'application/json')).toBeNull();
    expect(() => parseRequestBody(new Uint8Array([0xff, 0xfe, 0x7b]), 'application/json')).toThrow(/not valid utf-8/);
  });

  it('merges query and path parameters, path winning', () => {
    const merged = queryAndPathRecord(new URL('http://x/a?id=q&k=1&k=2&constructor=c'), { id: 'p' });
    expect({ ...merged }).toEqual({ id: 'p', k: ['1', '2'], constructor: 'c' });
  });
});

describe('pathAndQuery', () => {
  it('agrees with URL on path and query', () => {
    for (const url of [
      'http://h/a/b?x=1&y=%20z&x=2',
      'http://h:8080/',
      'http://h/p%C3%A9?',
      'http://h',
      'http://h/a#f',
      'http://h/a?b=1?c=2',
    ]) {
      const ours = pathAndQuery(url);
      const ref = new URL(url);
      expect(ours.path).toBe(ref.pathname);
      expect([...(ours.query ?? [])]).toEqual([...ref.searchParams]);
    }
  });

  it('rejects nesting deeper than the limit even when brackets are few elsewhere', () => {
    expect(() => parseJsonText(`${'['.repeat(600)}${']'.repeat(600)}`)).toThrow(/nesting deeper than 512/);
    expect(parseJsonText(`${'['.repeat(500)}${']'.repeat(500)}`)).toBeInstanceOf(Array);
  });
});

describe('headersRecordFromRaw', () => {
  const asHeaders = (raw: readonly string[]): Headers => {
    const headers = new Headers();
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
    return headers;
  };

  it('gives the same record as web Headers: lower-case, sorted, trimmed, repeats joined', () => {
    const raw = [
      'X-Trace',
      ' a ',
      'Content-Type',
      'application/json',
      'x-trace',
      'b',
      'Cookie',
      'a=1',
      'cookie',
      'b=2',
      'Accept',
      '*/*',
      '__proto__',
      'plain',
      'Set-Cookie',
      's=1',
      'set-cookie',
      's=2',
      'Host',
      'example.com',
    ];
    const fast = headersRecordFromRaw(raw);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(headersRecord(asHeaders(raw))));
    expect(Object.keys(fast)).toEqual([
      '__proto__',
      'accept',
      'content-type',
      'cookie',
      'host',
      'set-cookie',
      'x-trace',
    ]);
    expect(fast['x-trace']).toBe('a, b');
    expect(fast['cookie']).toBe('a=1; b=2');
    // `__proto__` is an own key holding the header's text, never a prototype write.
    expect(Object.getOwnPropertyDescriptor(fast, '__proto__')?.value).toBe('plain');
    expect(Object.getPrototypeOf(fast)).toBe(Object.prototype);
  });

  it('keeps names of Object.prototype members as own data', () => {
    const raw = ['Constructor', 'c', 'toString', 't', '__proto__', 'p', 'hasOwnProperty', 'h'];
    const record = headersRecordFromRaw(raw);
    expect(Object.entries(record)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['hasownproperty', 'h'],
      ['tostring', 't'],
    ]);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
  });

  it('leaves HTTP/2 pseudo-headers out', () => {
    expect(headersRecordFromRaw([':method', 'GET', 'accept', 'x'])).toEqual(
      Object.assign(Object.create(null), { accept: 'x' }),
    );
  });
});

describe('readIncomingLimited', () => {
  const incoming = (chunks: readonly string[], headers: Record<string, string> = {}): IncomingMessage => {
    const stream = Readable.from(chunks.map((c) => Buffer.from(c))) as unknown as IncomingMessage;
    Object.assign(stream, { headers });
    return stream;
  };

  it('reads the whole body, one chunk or several', async () => {
    expect(Buffer.from(await readIncomingLimited(incoming(['{"a":1}']), 100)).toString()).toBe('{"a":1}');
    expect(Buffer.from(await readIncomingLimited(incoming(['ab', 'cd', 'e']), 100)).toString()).toBe('abcde');
    expect((await readIncomingLimited(incoming([]), 100)).byteLength).toBe(0);
  });

  it('refuses with 413 by Content-Length or as soon as the streamed bytes pass the limit', async () => {
    await expect(readIncomingLimited(incoming(['x'], { 'content-length': '101' }), 100)).rejects.toMatchObject({
      code: 413,
    });
    await expect(readIncomingLimited(incoming(['x'.repeat(60), 'y'.repeat(60)]), 100)).rejects.toMatchObject({
      code: 413,
    });
  });

  it('fails with 400 when the stream breaks before its end', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('reset'));
      },
    }) as unknown as IncomingMessage;
    Object.assign(broken, { headers: {} });
    await expect(readIncomingLimited(broken, 100)).rejects.toMatchObject({ code: 400 });
  });
});

describe('headersRecordOf (from the headers Node parsed)', () => {
  /** Sends each raw header block to a real Node HTTP server and returns both records per request. */
  async function recordsFor(blocks: readonly string[]): Promise<Array<{ viaNode: string; viaRaw: string }>> {
    const seen: Array<{ viaNode: string; viaRaw: string }> = [];
    const server = createServer((req: IncomingMessage, res) => {
      const viaRaw = JSON.stringify(Object.entries(headersRecordFromRaw(req.rawHeaders)));
      const viaNode = JSON.stringify(Object.entries(headersRecordOf(req)));
      seen.push({ viaNode, viaRaw });
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const block of blocks) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () =>
            socket.write(`GET / HTTP/1.1\r\n${block}Connection: close\r\n\r\n`),
          );
          socket.on('data', () => undefined);
          socket.on('end', resolve);
          socket.on('error', reject);
        });
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return seen;
  }

  it('gives what headersRecordFromRaw gives, with and without repeated, odd or unusual headers', async () => {
    const blocks = [
      'Host: a.example\r\nContent-Type: application/json\r\nX-Custom:   spaced   \r\n',
      'host: b.example\r\naccept: */*\r\nAccept: text/html\r\nuser-agent: one\r\nUser-Agent: two\r\n',
      'Host: c.example\r\nCookie: a=1\r\ncookie: b=2\r\nSet-Cookie: s=1\r\n',
      'Host: d.example\r\n__proto__: plain\r\nconstructor: data\r\nZ-Last: z\r\nA-First: a\r\n',
      'Host: e.example\r\nX-Empty:\r\nContent-Length: 0\r\n',
    ];
    const records = await recordsFor(blocks);
    expect(records).toHaveLength(blocks.length);
    for (const { viaNode, viaRaw } of records) expect(viaNode).toBe(viaRaw);
    expect(JSON.parse(records[3]?.viaNode ?? '[]')).toContainEqual(['__proto__', 'plain']);
  });
});

describe('parseFormFields', () => {
  it('keeps repeated and prototype-named fields as own data of a plain object', () => {
    const fields = parseFormFields('__proto__=p&constructor=c&a=1&a=2&a=3');
    expect(Object.entries(fields)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['a', ['1', '2', '3']],
    ]);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });
});

describe('decodeUtf8Strictly', () => {
  const strict = new TextDecoder('utf-8', { fatal: true });
  /** TextDecoder's answer: the text, or null when it refuses the bytes. */
  const reference = (b: Uint8Array): string | null => {
    try {
      return strict.decode(b);
    } catch {
      return null;
    }
  };
  const ours = (b: Uint8Array): string | null => {
    try {
      return decodeUtf8Strictly(b);
    } catch (err) {
      expect((err as { code?: number }).code).toBe(400);
      return null;
    }
  };

  it('decodes like a fatal TextDecoder: BOM, real U+FFFD, multi-byte text, and refuses broken bytes', () => {
    const cases = [
      bytes('{"a":"plain"}'),
      bytes('\uFEFF{"a":1}'),
      bytes('{"a":"\uFFFD"}'),
      bytes('{"a":"é ☃ 😀"}'),
      bytes(''),
      new Uint8Array([0xc3, 0x28]),
      new Uint8Array([0xed, 0xa0, 0x80]),
      new Uint8Array([0xf0, 0x9f, 0x98]),
      new Uint8Array([0xc0, 0xaf]),
      new Uint8Array([0xef, 0xbf, 0xbd, 0xff]),
      new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
    ];
    for (const b of cases) {
      expect(ours(b)).toBe(reference(b));
      expect(ours(Buffer.from(b))).toBe(reference(b));
    }
    expect(reference(new Uint8Array([0xc3, 0x28]))).toBeNull();
  });

  it('agrees with a fatal TextDecoder on random bytes', () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % 256;
    for (let n = 0; n < 2000; n++) {
      // Mostly text-like bytes, with the lead and continuation bytes that make or break UTF-8.
      const b = Uint8Array.from({ length: 1 + (n % 12) }, () => {
        const r = next();
        return r < 128
          ? 0x61 + (r % 26)
          : ([0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xff, 0xbd][r % 11] as number);
      });
      expect(ours(b)).toBe(reference(b));
    }
  });
});
