/**
 * MCP client side of the agent: connects to one remote MCP server per `tools` entry, lists its
 * tools and calls them. In: `{ name, url, headers?, query?, accountFields? }`, a timeout and the
 * execution's abort signal; out: an McpConnection, or a PipeError — 502 when the server is
 * unreachable or refuses, 504 when it does not answer within the timeout.
 *
 * Streamable HTTP is tried first; if that fails for any reason other than a timeout, the legacy
 * SSE transport is tried within the same deadline. Headers, query parameters and the account's
 * credentials ride on every HTTP request through a wrapping fetch, so both transports carry them.
 * Tool lists are cached per execution (ToolListCache), so an agent step inside a loop lists once.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { PipeError } from '../errors.js';
import type { Json, JsonObject } from '../types.js';

export interface McpServerSpec {
  readonly name: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Fields of an account: key/token → Bearer; header-name/header-value; url-param-name/api-key; username/password → Basic. */
  readonly accountFields?: Readonly<Record<string, Json>>;
}

export interface McpToolInfo {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

export interface McpConnection {
  readonly server: string;
  readonly tools: readonly McpToolInfo[];
  /** Calls a tool; resolves to the text given to the model. A tool-level error is text too (prefixed). */
  callTool(tool: string, args: JsonObject): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export interface ToolOutcome {
  readonly text: string;
  readonly isError: boolean;
}

export interface ConnectOptions {
  readonly timeout: number;
  readonly signal: AbortSignal;
  readonly executionId: string;
  readonly cache?: ToolListCache;
}

const CLIENT_INFO = { name: 'pipec-agent', version: '0.1.0' };
const MAX_TOOL_PAGES = 10;

/** Tool lists per (execution, server); bounded so finished executions fall out. */
export class ToolListCache {
  private readonly entries = new Map<string, readonly McpToolInfo[]>();

  constructor(private readonly capacity = 256) {}

  static keyOf(executionId: string, spec: McpServerSpec): string {
    return `${executionId}\u0000${spec.name}\u0000${spec.url}`;
  }

  get(key: string): readonly McpToolInfo[] | undefined {
    return this.entries.get(key);
  }

  set(key: string, tools: readonly McpToolInfo[]): void {
    this.entries.delete(key);
    this.entries.set(key, tools);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

export async function connectMcp(spec: McpServerSpec, opts: ConnectOptions): Promise<McpConnection> {
  const url = serverUrl(spec);
  const headers = requestHeaders(spec);
  const lifetime = new AbortController();
  const signal = AbortSignal.any([lifetime.signal, opts.signal]);
  const fetchWithAuth = authFetch(url, headers, signal);
  const deadline = Date.now() + opts.timeout;
  const where = `MCP server "${spec.name}" (${redactedUrl(url)})`;

  const client = await connectEitherTransport(url, fetchWithAuth, deadline, signal, where);
  const close = async (): Promise<void> => {
    lifetime.abort();
    await client.close().catch(() => undefined);
  };
  try {
    const cacheKey = ToolListCache.keyOf(opts.executionId, spec);
    let tools = opts.cache?.get(cacheKey);
    if (!tools) {
      tools = await listAllTools(client, { timeout: opts.timeout, signal });
      opts.cache?.set(cacheKey, tools);
    }
    const listed = tools;
    return {
      server: spec.name,
      tools: listed,
      close,
      async callTool(tool: string, args: JsonObject): Promise<ToolOutcome> {
        try {
          const result = await client.callTool({ name: tool, arguments: args }, undefined, {
            timeout: opts.timeout,
            signal,
          });
          return toolOutcome(result as CallResultLike);
        } catch (err) {
          return { text: `Tool error: ${describeFailure(err)}`, isError: true };
        }
      },
    };
  } catch (err) {
    await close();
    throw mcpError(err, where, 'listing its tools', opts.signal);
  }
}

async function connectEitherTransport(
  url: URL,
  fetchWithAuth: typeof fetch,
  deadline: number,
  signal: AbortSignal,
  where: string,
): Promise<Client> {
  const streamable = new Client(CLIENT_INFO);
  try {
    await streamable.connect(new StreamableHTTPClientTransport(url, { fetch: fetchWithAuth }), {
      timeout: remaining(deadline),
      signal,
    });
    return streamable;
  } catch (streamableError) {
    await streamable.close().catch(() => undefined);
    if (isTimeout(streamableError) || signal.aborted || remaining(deadline) <= 0) {
      throw mcpError(streamableError, where, 'connecting', signal);
    }
    const legacy = new Client(CLIENT_INFO);
    try {
      await legacy.connect(new SSEClientTransport(url, { fetch: fetchWithAuth }), {
        timeout: remaining(deadline),
        signal,
      });
      return legacy;
    } catch (sseError) {
      await legacy.close().catch(() => undefined);
      // The Streamable HTTP failure is the more telling one unless SSE timed out.
      throw mcpError(isTimeout(sseError) ? sseError : streamableError, where, 'connecting', signal);
    }
  }
}

async function listAllTools(client: Client, options: { timeout: number; signal: AbortSignal }): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    for (const tool of result.tools) {
      tools.push({
        name: tool.name,
        description: tool.description ?? '',
        inputSchema: (tool.inputSchema ?? { type: 'object' }) as JsonObject,
      });
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

interface CallResultLike {
  readonly content?: ReadonlyArray<{
    readonly type: string;
    readonly text?: string;
    readonly mimeType?: string;
    readonly resource?: { readonly uri?: string; readonly text?: string };
  }>;
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly toolResult?: unknown;
}

/** An MCP call result as the text the model sees. */
export function toolOutcome(result: CallResultLike): ToolOutcome {
  const pieces: string[] = [];
  for (const item of result.content ?? []) {
    if (item.type === 'text' && typeof item.text === 'string') pieces.push(item.text);
    else if (item.type === 'resource' && item.resource)
      pieces.push(item.resource.text ?? `[resource ${item.resource.uri ?? ''}]`);
    else pieces.push(`[${item.type}${item.mimeType ? ` ${item.mimeType}` : ''}]`);
  }
  if (pieces.length === 0 && result.structuredContent !== undefined)
    pieces.push(JSON.stringify(result.structuredContent));
  if (pieces.length === 0 && result.toolResult !== undefined) pieces.push(JSON.stringify(result.toolResult));
  const text = pieces.join('\n');
  return result.isError ? { text: `Tool error: ${text}`, isError: true } : { text, isError: false };
}

// ───────────────────────────── HTTP details ─────────────────────────────

function serverUrl(spec: McpServerSpec): URL {
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new PipeError(`MCP server "${spec.name}" has an invalid URL`, { code: 500, kind: 'AGENT_CONFIG' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PipeError(`MCP server "${spec.name}" must use http or https`, { code: 500, kind: 'AGENT_CONFIG' });
  }
  for (const [key, value] of Object.entries(spec.query ?? {})) url.searchParams.set(key, value);
  const apiKeyParam = accountField(spec.accountFields, 'url-param-name');
  const apiKey = accountField(spec.accountFields, 'api-key');
  if (apiKeyParam && apiKey) url.searchParams.set(apiKeyParam, apiKey);
  return url;
}

/** Headers for every request: the configured ones plus what the account contributes. */
export function requestHeaders(spec: McpServerSpec): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(spec.headers ?? {})) headers.set(key, value);
  const fields = spec.accountFields;
  const bearer = accountField(fields, 'key') ?? accountField(fields, 'token');
  const headerName = accountField(fields, 'header-name');
  const headerValue = accountField(fields, 'header-value');
  const username = accountField(fields, 'username');
  const password = accountField(fields, 'password');
  if (bearer) headers.set('authorization', `Bearer ${bearer}`);
  else if (username !== undefined && password !== undefined) {
    headers.set('authorization', `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
  }
  if (headerName && headerValue) headers.set(headerName, headerValue);
  return headers;
}

/** Account field lookup ignoring case (`KEY` and `key` both work). */
function accountField(fields: Readonly<Record<string, Json>> | undefined, name: string): string | undefined {
  if (!fields) return undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (key.toLowerCase() === name && (typeof value === 'string' || typeof value === 'number')) return String(value);
  }
  return undefined;
}

/**
 * fetch that adds the configured headers and query parameters to every request to the server's
 * origin (the legacy SSE transport posts to a server-chosen path, which needs them too). Requests
 * to any other origin get neither, so credentials never leave for a host the user did not name.
 */
function authFetch(server: URL, extra: Headers, lifetime: AbortSignal): typeof fetch {
  return (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    const signal = init?.signal ? AbortSignal.any([init.signal, lifetime]) : lifetime;
    if (target.origin !== server.origin) return fetch(input, { ...init, signal });
    server.searchParams.forEach((value, key) => {
      if (!target.searchParams.has(key)) target.searchParams.set(key, value);
    });
    const request = input instanceof Request ? new Request(target, input) : undefined;
    const headers = new Headers(init?.headers ?? request?.headers);
    extra.forEach((value, key) => headers.set(key, value));
    return fetch(request ?? target, { ...init, headers, signal });
  };
}

/** The URL without query string or credentials: query parameters may carry keys. */
function redactedUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function isTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

function describeFailure(err: unknown): string {
  if (isTimeout(err)) return 'the tool did not answer within the timeout';
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${message}${cause}`;
}

function mcpError(err: unknown, where: string, doing: string, signal?: AbortSignal): PipeError {
  if (err instanceof PipeError) return err;
  if (signal?.aborted) {
    return new PipeError(`${where}: ${doing} was aborted (execution timeout or shutdown)`, {
      code: 504,
      kind: 'TIMEOUT',
      cause: err,
    });
  }
  if (isTimeout(err)) {
    return new PipeError(`${where} did not answer within the timeout while ${doing}`, {
      code: 504,
      kind: 'AGENT_MCP_TIMEOUT',
      cause: err,
    });
  }
  return new PipeError(`${where} is unavailable (${doing} failed: ${describeFailure(err)})`, {
    code: 502,
    kind: 'AGENT_MCP_UNAVAILABLE',
    cause: err,
  });
}
