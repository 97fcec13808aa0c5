/**
 * Test support: a scripted OpenAI-compatible HTTP server on 127.0.0.1. It records every request
 * (method, path, headers, parsed JSON body) and answers each one from the next script step —
 * a status, headers, a JSON body and an optional delay. When the script runs out it answers 500
 * with `x-should-retry: false`, so a test that asks too often fails loudly instead of hanging.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body (undefined when the body was empty or not JSON). */
  readonly body: any; // any: tests read arbitrary fields of what the client sent
}

export interface ScriptStep {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly delayMs?: number;
}

export type Script = ReadonlyArray<ScriptStep | ((request: RecordedRequest) => ScriptStep)>;

export interface ScriptedServer {
  /** Base URL to use as the account's `base-url`, e.g. http://127.0.0.1:1234/v1 */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startScriptedOpenAi(script: Script): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (raw) => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
        ),
        body: parseJson(raw),
      };
      requests.push(recorded);
      const entry = script[next++];
      const step: ScriptStep =
        entry === undefined
          ? { status: 500, headers: { 'x-should-retry': 'false' }, body: { error: { message: 'script exhausted' } } }
          : typeof entry === 'function'
            ? entry(recorded)
            : entry;
      if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
      if (res.destroyed) return;
      res.writeHead(step.status ?? 200, { 'content-type': 'application/json', ...(step.headers ?? {}) });
      res.end(JSON.stringify(step.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ReplySpec {
  readonly content?: string | null;
  readonly toolCalls?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly arguments: unknown }>;
  readonly usage?: { readonly prompt: number; readonly completion: number };
  readonly refusal?: string;
}

/** A chat.completion body as OpenAI returns it. */
export function chatCompletion(spec: ReplySpec): ScriptStep {
  const usage = spec.usage ?? { prompt: 10, completion: 5 };
  const toolCalls = spec.toolCalls?.map((call, i) => ({
    id: call.id ?? `call_${i}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  return {
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'test-model',
      choices: [
        {
          index: 0,
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
          message: {
            role: 'assistant',
            content: spec.content ?? null,
            refusal: spec.refusal ?? null,
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
        },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): unknown {
  try {
    return raw === '' ? undefined : JSON.parse(raw);
  } catch {
    return undefined;
  }
}
