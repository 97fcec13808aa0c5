/**
 * Language-server tests: a JSON-RPC client (vscode-languageserver-protocol) drives the server, in
 * process over a pair of streams for the features, and once over stdio as a real child process.
 * The fixture folder test/lsp/fixtures/shop holds two files that reference each other.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from 'vscode-languageserver/node';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type Hover,
  type Location,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { createPipeLanguageServer } from '../../compiler/lsp/server.js';
import { LineIndex } from '../../compiler/lsp/positions.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '../..');
const SHOP = path.join(HERE, 'fixtures/shop');
const ORDERS = path.join(SHOP, 'orders.pipe');
const NOTIFY = path.join(SHOP, 'notify.pipe');
const ordersUri = pathToFileURL(ORDERS).href;
const notifyUri = pathToFileURL(NOTIFY).href;
const ordersText = fs.readFileSync(ORDERS, 'utf8');
const notifyText = fs.readFileSync(NOTIFY, 'utf8');

/** Collects published diagnostics and lets a test wait for the next batch for a URI. */
class DiagnosticsInbox {
  private readonly waiters: { uri: string; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  constructor(client: ProtocolConnection) {
    client.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      const index = this.waiters.findIndex((w) => w.uri === params.uri);
      const waiter = this.waiters[index];
      if (waiter) {
        this.waiters.splice(index, 1);
        waiter.resolve(params);
      }
    });
  }
  next(uri: string): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve) => this.waiters.push({ uri, resolve }));
  }
}

async function initialize(client: ProtocolConnection): Promise<{ capabilities: Record<string, unknown> }> {
  const result = (await client.sendRequest('initialize', {
    processId: null,
    rootUri: pathToFileURL(SHOP).href,
    capabilities: {},
  })) as { capabilities: Record<string, unknown> };
  await client.sendNotification('initialized', {});
  return result;
}

/** A diagnostic's message text (LSP 3.18 allows markup). */
function messageOf(d: { message: string | { value: string } }): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

/** Cursor position of the first `at` in `text` (plus `delta` characters). */
function positionOf(text: string, at: string, delta = 0): { line: number; character: number } {
  const offset = text.indexOf(at);
  if (offset < 0) throw new Error(`fixture text lacks ${at}`);
  return new LineIndex(text).positionAt(offset + delta);
}

describe('pipec lsp (in process)', () => {
  let client: ProtocolConnection;
  let inbox: DiagnosticsInbox;
  let version = 1;

  beforeAll(async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    createPipeLanguageServer(createConnection(toServer, toClient), { debounceMs: 10 });
    client = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
    inbox = new DiagnosticsInbox(client);
    client.listen();
    const init = await initialize(client);
    expect(init.capabilities).toMatchObject({ hoverProvider: true, definitionProvider: true });
    expect(init.capabilities['completionProvider']).toBeDefined();
  });
  afterAll(() => client.dispose());

  const change = async (text: string): Promise<PublishDiagnosticsParams> => {
    const published = inbox.next(ordersUri);
    await client.sendNotification('textDocument/didChange', {
      textDocument: { uri: ordersUri, version: ++version },
      contentChanges: [{ text }],
    });
    return published;
  };

  it('publishes diagnostics with exact ranges on open, and clears them when fixed', async () => {
    const broken = ordersText.replace('log { message:', 'log { mesage:');
    const published = inbox.next(ordersUri);
    await client.sendNotification('textDocument/didOpen', {
      textDocument: { uri: ordersUri, languageId: 'pipe', version, text: broken },
    });
    const { diagnostics } = await published;
    const unknown = diagnostics.find((d) => messageOf(d).includes('mesage'));
    expect(unknown, JSON.stringify(diagnostics)).toBeDefined();
    const start = positionOf(broken, 'mesage');
    expect(unknown?.range).toEqual({ start, end: { line: start.line, character: start.character + 'mesage'.length } });
    expect(unknown?.severity).toBe(1);
    expect(unknown?.code).toMatch(/^PIPE\d{4}$/);
    expect(unknown?.source).toBe('pipec');

    const fixed = await change(ordersText);
    expect(fixed.diagnostics).toEqual([]);
  });

  it('reports a syntax error at its token', async () => {
    const broken = ordersText.replace('respond 201 { ok: true }', 'respond 201 { ok: true ]');
    const { diagnostics } = await change(broken);
    expect(diagnostics.length).toBeGreaterThan(0);
    const at = positionOf(broken, ']');
    expect(diagnostics.some((d) => d.range.start.line === at.line)).toBe(true);
    expect((await change(ordersText)).diagnostics).toEqual([]);
  });

  it('follows the project rules for imports: outside the workspace or a device is refused, at once', async () => {
    const imports = 'import "/dev/zero" as Zero\nimport "../../../../package.json" as Outside\n';
    const { diagnostics } = await change(`${imports}${ordersText}`);
    const codes = diagnostics.map((d) => d.code);
    expect(codes).toContain('PIPE2015');
    expect(codes).toContain('PIPE2014');
    expect((await change(ordersText)).diagnostics).toEqual([]);
  });

  it('reports a cross-file error in the other file of the folder', async () => {
    const published = inbox.next(notifyUri);
    await change(ordersText.replace('execute audit', 'execute audits'));
    const other = await published;
    expect(other.diagnostics).toEqual([]); // notify.pipe itself is clean
    const { diagnostics } = await change(ordersText.replace('execute audit', 'execute audits'));
    expect(diagnostics.some((d) => messageOf(d).includes('audits'))).toBe(true);
    await change(ordersText);
  });

  const hoverAt = async (at: string, delta = 1): Promise<string> => {
    const result = (await client.sendRequest('textDocument/hover', {
      textDocument: { uri: ordersUri },
      position: positionOf(ordersText, at, delta),
    })) as Hover | null;
    const contents = result?.contents as { value: string } | undefined;
    return contents?.value ?? '';
  };

  it('hovers a connector name with its summary and parameter table', async () => {
    const text = await hoverAt('log {');
    expect(text).toContain('connector `log`');
    expect(text).toMatch(/\| `message` \* \| string \|/);
    expect(text).toContain('`level`');
  });

  it('hovers a trigger kind, a parameter key and a Double Braces function', async () => {
    expect(await hoverAt('http {')).toContain('trigger `http`');
    expect(await hoverAt('path:')).toContain('(parameter of `http`)');
    const fn = await hoverAt('UPPERCASE(', 2);
    expect(fn).toContain('UPPERCASE(value');
    expect(fn).toContain('upper case');
    expect(await hoverAt('global.limits', 8)).toContain('global limits = { max: 10 }');
  });

  const definitionAt = async (at: string, delta = 1): Promise<Location[]> =>
    (await client.sendRequest('textDocument/definition', {
      textDocument: { uri: ordersUri },
      position: positionOf(ordersText, at, delta),
    })) as Location[];

  it('goes to definitions across files: pipelines, events, stores, globals', async () => {
    const audit = await definitionAt('execute audit', 9);
    expect(audit).toEqual([
      { uri: notifyUri, range: { start: positionOf(notifyText, 'audit'), end: positionOf(notifyText, 'audit', 5) } },
    ]);
    const event = await definitionAt('publish order-placed', 9);
    expect(event).toEqual([
      {
        uri: notifyUri,
        range: { start: positionOf(notifyText, '"order-placed"'), end: positionOf(notifyText, '"order-placed"', 14) },
      },
    ]);
    const store = await definitionAt('store orders.insert', 7);
    expect(store).toEqual([
      { uri: ordersUri, range: { start: positionOf(ordersText, 'orders'), end: positionOf(ordersText, 'orders', 6) } },
    ]);
    const global = await definitionAt('global.limits.max', 9);
    expect(global).toEqual([
      { uri: ordersUri, range: { start: positionOf(ordersText, 'limits'), end: positionOf(ordersText, 'limits', 6) } },
    ]);
  });

  it('goes from an event trigger to its publishers', async () => {
    await client.sendNotification('textDocument/didOpen', {
      textDocument: { uri: notifyUri, languageId: 'pipe', version: 1, text: notifyText },
    });
    const result = (await client.sendRequest('textDocument/definition', {
      textDocument: { uri: notifyUri },
      position: positionOf(notifyText, '"order-placed"', 3),
    })) as Location[];
    expect(result).toEqual([
      {
        uri: ordersUri,
        range: { start: positionOf(ordersText, 'order-placed'), end: positionOf(ordersText, 'order-placed', 12) },
      },
    ]);
  });

  const completionsAt = async (text: string, marker: string): Promise<CompletionItem[]> => {
    const offset = text.indexOf(marker);
    const withoutMarker = text.slice(0, offset) + text.slice(offset + marker.length);
    await change(withoutMarker);
    const position = new LineIndex(withoutMarker).positionAt(offset);
    const result = (await client.sendRequest('textDocument/completion', {
      textDocument: { uri: ordersUri },
      position,
    })) as CompletionItem[];
    return result;
  };

  it('completes connector names and step keywords at step position', async () => {
    const items = await completionsAt(ordersText.replace('  respond 201', '  lo§\n  respond 201'), '§');
    const labels = items.map((i) => i.label);
    expect(labels).toEqual(expect.arrayContaining(['log', 'rest', 'agent', 'respond', 'choice', 'for-each']));
    const log = items.find((i) => i.label === 'log');
    expect(log?.textEdit).toMatchObject({ newText: 'log' });
  });

  it('completes parameter names inside a step block, without the ones already set', async () => {
    const items = await completionsAt(ordersText.replace('log { message: "order', 'log { §message: "order'), '§');
    const labels = items.map((i) => i.label);
    expect(labels).toContain('level');
    expect(labels).not.toContain('message');
    expect(items.find((i) => i.label === 'level')?.documentation).toBeDefined();
  });

  it('completes trigger kinds after `trigger `', async () => {
    const items = await completionsAt(ordersText.replace('trigger http {', 'trigger §http {'), '§');
    expect(items.map((i) => i.label)).toEqual(
      expect.arrayContaining(['http', 'event', 'scheduler', 'http-file', 'mcp-tool']),
    );
  });

  it('completes Double Braces functions after `{{ ` and globals after `global.`', async () => {
    const fns = await completionsAt(ordersText.replace('{{ UPPERCASE(', '{{ §UPPERCASE('), '§');
    expect(fns.map((i) => i.label)).toEqual(expect.arrayContaining(['UPPERCASE', 'NOW', 'SIZE', 'message']));
    expect(fns.find((i) => i.label === 'SIZE')?.detail).toContain('SIZE(');
    const globals = await completionsAt(ordersText.replace('{{ global.limits.max }}', '{{ global.§ }}'), '§');
    expect(globals.map((i) => i.label)).toEqual(['limits']);
    await change(ordersText);
  });
});

describe('pipec lsp (stdio child process)', () => {
  it('initializes and publishes diagnostics over stdin/stdout', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(path.join(ROOT, 'compiler/lsp/server.ts'))}).then((m) => m.startStdioServer()).then((code) => process.exit(code))`,
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const client = createProtocolConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const inbox = new DiagnosticsInbox(client);
    client.listen();
    try {
      const init = await initialize(client);
      expect(init.capabilities).toMatchObject({ hoverProvider: true });
      const uri = pathToFileURL(path.join(SHOP, 'scratch.pipe')).href;
      const text = 'pipeline scratch {\n  trigger http { method: POST, path: "/scratch" }\n  nope { }\n}\n';
      const published = inbox.next(uri);
      await client.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'pipe', version: 1, text },
      });
      const { diagnostics } = await published;
      const start = positionOf(text, 'nope');
      expect(
        diagnostics.find((d) => d.range.start.line === start.line && d.range.start.character === start.character),
      ).toBeDefined();
      await client.sendRequest('shutdown');
      await client.sendNotification('exit');
    } finally {
      client.dispose();
      child.kill();
    }
  });
});
