/**
 * Hostile HTTP requests for the fuzz run, as fast-check arbitraries: the routes of the fixture
 * service (test/fuzz/fixtures/attack-surface.pipe) and tricks on them — malformed and deep JSON,
 * `__proto__` keys, odd and lying content types, multipart with and without boundaries, invalid
 * UTF-8, huge bodies, path traversal and broken escapes, and authorization headers that do not
 * decode.
 */
import fc from 'fast-check';
import type { RawRequest } from './raw-http.js';

const ROUTES = [
  '/orders',
  '/items/42',
  '/echo',
  '/route',
  '/guarded/basic',
  '/guarded/key',
  '/upload',
  '/mcp',
  '/notify',
  '/health',
  '/ready',
  '/metrics',
];

const pathTrick = fc.constantFrom(
  '/../../etc/passwd',
  '/items/..%2f..%2fetc%2fpasswd',
  '/items/%00',
  '/items/%',
  '/items/%zz',
  '/items/%ff%fe',
  '//orders',
  '/orders/',
  '/ORDERS',
  '/orders%2f',
  '/items/a?b=%',
  '/items/x?__proto__[polluted]=1&constructor[prototype][x]=1',
  '/items/x?a=1&a=2&a[]=3',
  '/items/\u00e9',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/items/' + 'a'.repeat(3000),
  '/echo?' + 'q=1&'.repeat(500),
  '*',
  '/items/x#frag',
  '/.well-known/jwks.json',
  '/mcp?sessionId=../../x',
  '/items/%c0%ae%c0%ae',
);

const target = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...ROUTES) },
  { weight: 3, arbitrary: pathTrick },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...ROUTES), fc.string({ maxLength: 30 }))
      .map(([r, q]) => `${r}?${encodeURIComponent(q).replace(/%25/g, '%')}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ minLength: 1, maxLength: 40 })
      .map((b) => Buffer.concat([Buffer.from('/items/'), Buffer.from(b.filter((x) => x > 0x20 && x !== 0x7f))])),
  },
);

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'FOO', 'get') },
);

const BOUNDARY = 'fuzzBoundary7MA4YWxk';

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-16',
  'application/x-www-form-urlencoded',
  'application/xml',
  'application/octet-stream',
  'multipart/form-data',
  `multipart/form-data; boundary=${BOUNDARY}`,
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary="unclosed',
  'multipart/mixed; boundary=x',
  '',
  ';;;',
  'application/json; boundary=x',
  'a'.repeat(300),
  'application/json;charset=utf-8;charset=utf-16',
);

/** JSON text from values (including `__proto__`, `constructor` and deep nesting) and from broken pieces. */
const jsonBody = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          id: fc.string({ maxLength: 70 }),
          quantity: fc.oneof(fc.integer(), fc.double(), fc.string()),
          total: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":true},"id":"a","quantity":1}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"id":"a","quantity":1,"__proto__":null}',
    ),
  },
  { weight: 1, arbitrary: fc.nat({ max: 100_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
  { weight: 1, arbitrary: fc.nat({ max: 100_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{',
      '{"a":',
      '[1,2,',
      '{"a" 1}',
      'nul',
      'tru',
      '"\\ud800"',
      '"\\u00"',
      '1e99999',
      '-',
      '{"a":1}}',
      '\ufeff{"a":1}',
      'NaN',
      '{"a":1,}',
      "{'a':1}",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

/** Bytes that are not UTF-8 (lone continuation bytes, overlong forms, surrogates encoded). */
const invalidUtf8 = fc.constantFrom(
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from('{"id":"\u0000","quantity":1}'),
);

function multipart(
  parts: readonly { name: string; filename?: string; type?: string; data: Buffer }[],
  boundary = BOUNDARY,
  close = true,
): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    out.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
      p.data,
      Buffer.from('\r\n'),
    );
  }
  if (close) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

const multipartBody = fc
  .tuple(
    fc.array(
      fc.record({
        name: fc.constantFrom('file', '__proto__', 'constructor', 'a', '', 'x'.repeat(300), 'a"b'),
        filename: fc.option(
          fc.constantFrom('../../etc/passwd', 'report.pdf', '', 'a\r\nb', '%00.pdf', 'x'.repeat(400)),
          { nil: undefined },
        ),
        type: fc.option(fc.constantFrom('application/pdf', 'text/plain', '', 'x/y; a=b'), { nil: undefined }),
        data: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      }),
      { maxLength: 25 },
    ),
    fc.boolean(),
  )
  .map(([parts, close]) => multipart(parts, BOUNDARY, close));

const body = fc.oneof(
  { weight: 5, arbitrary: jsonBody.map((t) => Buffer.from(t)) },
  { weight: 1, arbitrary: invalidUtf8 },
  { weight: 2, arbitrary: multipartBody },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((s) => Buffer.from(s.replace(/ /g, '&'))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(Buffer.alloc(0), Buffer.alloc(300 * 1024, 0x61), Buffer.alloc(70 * 1024, 0x7b)),
  },
);

const base64Of = (s: string | Uint8Array): string => Buffer.from(s).toString('base64');

const extraHeader: fc.Arbitrary<readonly [string, string | Buffer]> = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['Authorization', `Basic ${base64Of('fuzz:fuzz-password-0123456789')}`],
    ['Authorization', `Basic ${base64Of('fu%zz:x')}`],
    ['Authorization', 'Basic !!!'],
    ['Authorization', 'Basic'],
    ['Authorization', `Basic ${base64Of('no-colon')}`],
    ['Authorization', 'Bearer a.b.c'],
    ['Authorization', 'Bearer eyJhbGciOiJub25lIn0.eyJleHAiOjk5OTk5OTk5OTl9.'],
    ['Authorization', 'x'.repeat(9000)],
    ['x-api-key', 'fuzz-api-key-0123456789'],
    ['x-api-key', ''],
    ['x-api-key', 'wrong'],
    ['Origin', 'http://evil.example'],
    ['Origin', 'null'],
    ['Accept', 'application/json, text/event-stream'],
    ['Accept', '*/*'],
    ['Content-Encoding', 'gzip'],
    ['Expect', '100-continue'],
    ['X-Forwarded-For', '1.2.3.4, ::1'],
    ['traceparent', '00-zz-zz-01'],
    ['mcp-session-id', '../../etc'],
    ['Cookie', '__proto__=1'],
  ),
  fc
    .tuple(fc.constantFrom('Authorization', 'X-Thing', 'Content-Disposition'), fc.uint8Array({ maxLength: 60 }))
    .map(([n, b]) => [n, `Basic ${base64Of(b)}`] as const),
);

export interface FuzzRequest extends RawRequest {
  /** What the run is about, for the failure report. */
  readonly label: string;
}

export const hostileRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method,
    target,
    contentType: fc.option(contentType, { nil: undefined }),
    headers: fc.array(extraHeader, { maxLength: 3 }),
    body: fc.option(body, { nil: undefined, freq: 4 }),
    chunked: fc.boolean(),
  })
  .map((r) => ({
    method: r.method,
    target: r.target,
    headers: [...(r.contentType !== undefined ? [['Content-Type', r.contentType] as const] : []), ...r.headers],
    ...(r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD' ? { body: r.body } : {}),
    chunked: r.chunked,
    label: [
      r.method,
      Buffer.isBuffer(r.target) ? r.target.toString('latin1') : r.target,
      `[${r.contentType ?? '-'}]`,
      r.body ? `${r.body.length} bytes` : 'no body',
    ].join(' '),
  }));
