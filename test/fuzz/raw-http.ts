/**
 * A raw HTTP/1.1 client for hostile requests: the request is bytes written to a socket as they
 * are (no client library refuses or repairs an invalid header, path or body), the answer is read
 * until the server closes. Used by the fuzz run and the attack tests.
 */
import net from 'node:net';

export interface RawRequest {
  readonly method: string;
  /** Sent as it is: may hold `..`, `%00`, invalid escapes or raw bytes. */
  readonly target: string | Buffer;
  readonly headers: readonly (readonly [string, string | Buffer])[];
  readonly body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  readonly chunked?: boolean;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** The bytes of a request (Connection: close, so the answer ends with the connection). */
export function encodeRequest(req: RawRequest): Buffer {
  const head: Buffer[] = [
    Buffer.from(`${req.method} `),
    Buffer.isBuffer(req.target) ? req.target : Buffer.from(req.target, 'latin1'),
    Buffer.from(' HTTP/1.1\r\nHost: fuzz.local\r\nConnection: close\r\n'),
  ];
  for (const [name, value] of req.headers)
    head.push(
      Buffer.from(`${name}: `, 'latin1'),
      Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'),
      Buffer.from('\r\n'),
    );
  const body = req.body ?? Buffer.alloc(0);
  if (req.chunked) {
    head.push(Buffer.from('Transfer-Encoding: chunked\r\n\r\n'));
    const chunks = body.length > 0 ? [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')] : [];
    return Buffer.concat([...head, ...chunks, Buffer.from('0\r\n\r\n')]);
  }
  head.push(Buffer.from(`Content-Length: ${body.length}\r\n\r\n`));
  return Buffer.concat([...head, body]);
}

/** Parses a complete HTTP/1.1 response (Content-Length, chunked or until close). */
export function parseResponse(raw: Buffer): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? Number.NaN);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * Sends the request and resolves with the answer once the server closes the connection; rejects
 * when nothing complete came back within `timeoutMs` (the socket is destroyed then).
 */
export function sendRaw(
  port: number,
  req: RawRequest | Buffer,
  timeoutMs = 10_000,
  localAddress?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed) resolve(parsed);
      else reject(new Error(`the connection closed without a complete answer (${Buffer.concat(chunks).length} bytes)`));
    });
    socket.write(Buffer.isBuffer(req) ? req : encodeRequest(req));
  });
}
