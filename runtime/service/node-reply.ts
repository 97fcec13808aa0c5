/**
 * Writing a reply onto a Node response, for requests answered without @hono/node-server
 * (RouteTable.serveNode): the status, headers and body the adapter would write for the same
 * Response, with the Content-Length it would set.
 */
import type { ServerResponse } from 'node:http';
import type { HttpResponseParts } from './result-mapping.js';

/** The type the adapter gives a body that names none. */
const DEFAULT_CONTENT_TYPE = 'text/plain; charset=UTF-8';

/**
 * Writes the parts of a reply (the usual answer: no Response object made). The headers are set
 * before `end`, which then sets the Content-Length itself from the body, as the adapter has it set.
 */
export function writeParts(outgoing: ServerResponse, parts: HttpResponseParts): void {
  outgoing.statusCode = parts.status;
  const headers = parts.headers;
  for (const name in headers) outgoing.setHeader(name, headers[name] as string);
  if (parts.body === null) outgoing.end();
  else outgoing.end(parts.body);
}

/** Writes a web Response (a refusal, an error answer): its status, headers and whole body. */
export async function writeResponse(outgoing: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  // Headers set by a writeParts that failed on a later one are not this response's.
  for (const name of outgoing.getHeaderNames()) outgoing.removeHeader(name);
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (body === null) {
    outgoing.writeHead(response.status, headers);
    outgoing.end();
    return;
  }
  if (headers['content-length'] === undefined) headers['content-length'] = String(body.byteLength);
  headers['content-type'] ??= DEFAULT_CONTENT_TYPE;
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}

/** A reply that could not be written (a throw of the writing itself): the connection is closed. */
export function abandonReply(outgoing: ServerResponse, err: unknown): void {
  outgoing.destroy(err instanceof Error ? err : new Error(String(err)));
}
