/**
 * The proof that a connector and a trigger are each ONE folder: this test writes a throwaway
 * connector (`shout`) and a throwaway trigger (`ping`) into a folder of their own, outside pipec,
 * and shows — with no edit anywhere else — that the registry's discovery finds them and that each
 * is checked (parameter errors from its schema), built, run by the built service (a real
 * `node server.js`, and in process for its spans), graphed, hovered in the language server and
 * mocked in `pipec test`. The registry is loaded exactly as pipec loads its own, with the extra
 * folder as a second root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from 'vscode-languageserver/node';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Hover,
  type Location,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { parseFile } from '../../compiler/ast/parse-file.js';
import { build } from '../../compiler/cli/build-command.js';
import { compileFiles } from '../../compiler/cli/compile-files.js';
import { runPipeTests } from '../../compiler/cli/test-command.js';
import type { ConnectorRegistry } from '../../compiler/connectors/connector-registry.js';
import { defaultComponentRoot, loadRegistry } from '../../compiler/connectors/load-registry.js';
import { buildGraph, toMermaid } from '../../compiler/graph/index.js';
import { LineIndex } from '../../compiler/lsp/positions.js';
import { createPipeLanguageServer } from '../../compiler/lsp/server.js';
import type { Service, ServiceDefinition, ServiceOptions } from '../../runtime/service/create-service.js';
import { REPO_ROOT, startServer, tempDir, type RunningService } from '../e2e/service-process.js';

const work = tempDir('one-folder');
const components = path.join(work, 'components');
const project = path.join(work, 'project');
const hookApi = (from: string): string =>
  path
    .relative(from, path.join(REPO_ROOT, 'compiler', 'connectors', 'hook-api.js'))
    .split(path.sep)
    .join('/');

/** Writes files under `dir` (paths relative to it). */
function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
}

const SHOUT = path.join(components, 'connectors', 'shout');
const PING = path.join(components, 'triggers', 'ping');

write(SHOUT, {
  'schema.json': JSON.stringify(
    {
      name: 'shout',
      kind: 'connector',
      summary: 'Repeats a text in capitals (the throwaway connector of the one-folder test)',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: { type: 'string', minLength: 1, 'x-pipe-braces': true, description: 'What to shout.' },
          times: { type: 'integer', minimum: 1, maximum: 5, default: 1, description: 'How many times.' },
          announce: { type: 'string', 'x-pipe-ref': 'event', description: 'An event to publish the shout as.' },
        },
      },
      output: {
        type: 'object',
        additionalProperties: false,
        required: ['shouted', 'volume'],
        properties: { shouted: { type: 'string' }, volume: { type: 'integer' } },
      },
      message: { read: 'never' },
      'x-pipe-span': { kind: 'client', attributes: { 'shout.times': 'times' } },
      'x-pipe-metrics': { 'events-published': { event: 'announce' } },
      'x-pipe-test': { network: [{ why: 'it shouts across the network' }] },
    },
    null,
    2,
  ),
  // The compile-time part: the volume is worked out at build time from the literal `times`.
  'compile.ts': `import type { ConnectorCompiler } from '${hookApi(SHOUT)}';
export const compile: ConnectorCompiler = {
  step({ step }, result, api) {
    const times = api.entryOf(step.params, 'times');
    const count = times?.kind === 'number' ? times.value : 1;
    result.params['volume'] = { js: String(count * 10), constant: true };
  },
};
`,
  // The run-time part, as pipec's own connectors write it.
  'shout.ts': `import type { ExecutionContext, Json } from '../../types.js';
export async function run(params: { text: string; times?: number; volume: number; announce?: string }, _message: Json, ctx: ExecutionContext): Promise<Json> {
  const shouted = Array.from({ length: params.times ?? 1 }, () => params.text.toUpperCase()).join(' ');
  if (params.announce) await ctx.services.broker.publish(params.announce, { shouted });
  return { shouted, volume: params.volume };
}
`,
});

write(PING, {
  'schema.json': JSON.stringify(
    {
      name: 'ping',
      kind: 'trigger',
      summary: 'Starts the pipeline on GET requests to a path (the throwaway trigger of the one-folder test)',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: {
          path: { type: 'string', pattern: '^/', description: 'The path it answers.' },
          greeting: { type: 'string', maxLength: 20, description: 'The greeting in every message.' },
        },
      },
      'x-pipe-span': { kind: 'server' },
      'x-pipe-route': { path: 'path', 'default-method': 'GET' },
      'x-pipe-graph': { label: ['path'] },
    },
    null,
    2,
  ),
  'compile.ts': `import type { TriggerCompiler } from '${hookApi(PING)}';
export const compile: TriggerCompiler = {
  trigger({ trigger }, api) {
    const read = api.reader(trigger.config);
    return {
      spec: { path: JSON.stringify(read.str('path', '/')), greeting: JSON.stringify(read.str('greeting', 'hello')) },
      message: api.types.closed({ greeting: api.types.STRING, at: api.types.INTEGER }),
    };
  },
};
`,
  // Routes on attach; ready once it has answered a first request (a readiness dependency).
  'ping.ts': `import { outcomeResponse } from '../../service/http-response.js';
import type { TriggerRuntime } from '../../service/trigger-host.js';
import type { TriggerSpec } from '../../types.js';
interface PingSpec extends TriggerSpec { readonly path: string; readonly greeting: string }
export const trigger: TriggerRuntime<PingSpec> = {
  attach(pipelines, host) {
    let warm = false;
    host.readiness('ping', () => warm);
    for (const p of pipelines) {
      host.route(p.name, ['GET'], p.trigger.path, async () => {
        const outcome = await host.engine.execute({ pipeline: p.name, message: { greeting: p.trigger.greeting, at: host.clock.now() }, trigger: 'ping' });
        warm = true;
        return outcomeResponse(outcome);
      });
    }
    return {};
  },
  testMessage: (spec, given) => ({ greeting: spec.greeting, at: 0, ...(given !== null && typeof given === 'object' && !Array.isArray(given) ? given : {}) }),
};
`,
});

const GREET = `pipeline greet {
  trigger ping { path: "/greet", greeting: "hi" }
  shout loud { text: "{{ message.greeting }} there", times: 2, announce: "shouted" }
  respond 200 { said: "{{ step.loud.shouted }}", volume: {{ step.loud.volume }} }
}

pipeline listen {
  trigger event { name: "shouted" }
  log { message: "heard {{ message.shouted }}" }
}
`;
const GREET_FILE = path.join(project, 'ok', 'greet.pipe');
write(project, {
  'ok/greet.pipe': GREET,
  'ok/greet.test.pipe': `test "greets loudly" {
  pipeline: greet
  mock shout loud { shouted: "HI THERE HI THERE", volume: 20 }
  expect status 200
  expect output { said: "HI THERE HI THERE", volume: 20 }
}

test "its message comes from the trigger" {
  pipeline: greet
  input: { greeting: "yo" }
  mock shout loud { shouted: "YO", volume: 10 }
  expect called loud 1 times with { text: "yo there", times: 2 }
}
`,
  'bad/bad.pipe': `pipeline bad {
  trigger ping { greeting: "far too long a greeting here", port: 80 }
  shout { text: "x", times: 9, loudness: 3 }
  log { message: "{{ message.greting }}" }
}
`,
  'unmocked/greet.pipe': GREET,
  'unmocked/greet.test.pipe': `test "forgets the mock" {
  pipeline: greet
  expect status 200
}
`,
  'misfit/greet.pipe': GREET,
  'misfit/greet.test.pipe': `test "mocks the wrong shape" {
  pipeline: greet
  mock shout loud { shouted: 1, volume: 20 }
  expect status 200
}
`,
});

let registry: ConnectorRegistry;
beforeAll(async () => {
  registry = await loadRegistry({ roots: [defaultComponentRoot(), components] });
});

const quiet = { out: () => undefined, err: () => undefined };

describe('a throwaway connector and trigger, each one folder', () => {
  it('are found by the registry, with their compile-time parts', () => {
    expect(registry.connectors.get('shout')?.module).toBe('connectors/shout/shout');
    expect(registry.triggers.get('ping')?.module).toBe('triggers/ping/ping');
    expect(registry.connectorCompilers.has('shout')).toBe(true);
    expect(registry.triggerCompilers.has('ping')).toBe(true);
    expect(registry.connectors.has('rest')).toBe(true); // pipec's own are still there
  });

  it('are checked: parameter errors come from their schemas, message shapes from the trigger', async () => {
    const result = await compileFiles({ inputs: [path.join(project, 'bad')], emit: false, registry });
    const found = result.diagnostics.map((d) => `${d.code} ${d.message}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PIPE3\d{3} .*`path`/), // ping: required
        expect.stringMatching(/^PIPE3001 unknown parameter `port` for trigger `ping`/),
        expect.stringMatching(/^PIPE3\d{3} .*`greeting`/), // ping: maxLength
        expect.stringMatching(/^PIPE3\d{3} .*`times`/), // shout: maximum 5
        expect.stringMatching(/^PIPE3001 unknown parameter `loudness` for connector `shout`/),
        expect.stringMatching(/^PIPE4006 no field `greting` on `message`/), // ping's closed message
      ]),
    );
    const clean = await compileFiles({ inputs: [GREET_FILE], emit: false, registry });
    expect(clean.diagnostics).toEqual([]);
  });

  it('are graphed: the trigger node with its label, the event the connector publishes', () => {
    const mermaid = toMermaid(buildGraph([parseFile(GREET_FILE, GREET).value], registry));
    expect(mermaid).toContain('ping /greet');
    expect(mermaid).toContain('shout loud');
    expect(mermaid).toMatch(/greet_n\d+ -\.->\|"event shouted"\| listen_n1/);
  });

  describe('are built and run by the built service', () => {
    let outDir: string;
    let server: RunningService | undefined;
    beforeAll(async () => {
      outDir = path.join(work, 'out');
      const built = await build(
        { inputs: [GREET_FILE], out: outDir, name: 'one-folder', format: 'text', color: false, registry },
        quiet,
      );
      expect(built.ok).toBe(true);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('carries the run-time parts and none of the compile-time parts', () => {
      expect(fs.existsSync(path.join(outDir, 'runtime', 'connectors', 'shout', 'shout.js'))).toBe(true);
      expect(fs.existsSync(path.join(outDir, 'runtime', 'triggers', 'ping', 'ping.js'))).toBe(true);
      expect(fs.existsSync(path.join(outDir, 'runtime', 'connectors', 'shout', 'compile.js'))).toBe(false);
      expect(fs.existsSync(path.join(outDir, 'runtime', 'connectors', 'jolt', 'compile.js'))).toBe(false);
      const service = fs.readFileSync(path.join(outDir, 'service.ts'), 'utf8');
      expect(service).toContain("from './runtime/triggers/ping/ping.js'");
    });

    it('serves the trigger, runs the connector, publishes its event, counts it, and waits for its readiness', async () => {
      server = await startServer(outDir);
      const before = await fetch(`${server.url}/ready`);
      expect(before.status).toBe(503);
      expect(await before.json()).toEqual({ status: 'waiting', waitingFor: ['ping'] });
      const res = await fetch(`${server.url}/greet`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ said: 'HI THERE HI THERE', volume: 20 });
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/pipec_events_published_total\{[^}]*event="shouted"[^}]*\} 1/);
      for (let i = 0; i < 200 && !server.logs().includes('heard HI THERE HI THERE'); i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(server.logs()).toContain('heard HI THERE HI THERE');
    });

    it('opens the spans their schemas say', async () => {
      const exporter = new InMemorySpanExporter();
      const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const definition = (
        (await import(pathToFileURL(path.join(outDir, 'service.js')).href)) as { service: ServiceDefinition }
      ).service;
      const runtime = (await import(pathToFileURL(path.join(outDir, 'runtime', 'index.js')).href)) as {
        createService(def: ServiceDefinition, opts?: ServiceOptions): Promise<Service>;
      };
      const service = await runtime.createService(definition, {
        dataDir: path.join(work, 'traced'),
        env: { LOG_LEVEL: 'warn' },
        tracer: provider.getTracer('one-folder'),
      });
      await service.start();
      let spans: ReturnType<InMemorySpanExporter['getFinishedSpans']>;
      try {
        expect((await service.app.request('/greet')).status).toBe(200);
      } finally {
        await service.stop(0);
        spans = exporter.getFinishedSpans(); // shutdown empties the exporter
        await provider.shutdown();
      }
      const execution = spans.find((s) => s.name === 'pipeline greet');
      const step = spans.find((s) => s.name === 'step loud');
      expect(execution?.kind).toBe(1); // SERVER, from ping's x-pipe-span
      expect(step?.kind).toBe(2); // CLIENT, from shout's x-pipe-span
      expect(step?.attributes['shout.times']).toBe(2);
    });
  });

  describe('are hovered in the language server', () => {
    let client: ProtocolConnection;
    const uri = pathToFileURL(GREET_FILE).href;
    const index = new LineIndex(GREET);
    const at = (text: string, delta = 1) => index.positionAt(GREET.indexOf(text) + delta);
    beforeAll(async () => {
      const toServer = new PassThrough();
      const toClient = new PassThrough();
      createPipeLanguageServer(createConnection(toServer, toClient), { debounceMs: 10, registry });
      client = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
      client.listen();
      await client.sendRequest('initialize', {
        processId: null,
        rootUri: pathToFileURL(path.dirname(GREET_FILE)).href,
        capabilities: {},
      });
      await client.sendNotification('initialized', {});
      await client.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'pipe', version: 1, text: GREET },
      });
    });
    afterAll(() => client.dispose());

    it('shows the connector and the trigger from their schemas', async () => {
      const onShout = (await client.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position: at('shout loud'),
      })) as Hover;
      expect(JSON.stringify(onShout.contents)).toContain('Repeats a text in capitals');
      expect(JSON.stringify(onShout.contents)).toContain('`times`');
      const onPing = (await client.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position: at('ping {'),
      })) as Hover;
      expect(JSON.stringify(onPing.contents)).toContain('Starts the pipeline on GET requests');
      const onParam = (await client.sendRequest('textDocument/hover', {
        textDocument: { uri },
        position: at('times: 2'),
      })) as Hover;
      expect(JSON.stringify(onParam.contents)).toContain('parameter of `shout`');
    });

    it('goes from the event the connector announces to its subscriber', async () => {
      const targets = (await client.sendRequest('textDocument/definition', {
        textDocument: { uri },
        position: at('"shouted"', 2),
      })) as Location[];
      expect(targets.map((t) => t.range.start.line)).toEqual([index.positionAt(GREET.indexOf('name: "shouted"')).line]);
    });
  });

  describe('are mocked in pipec test', () => {
    const run = async (
      folder: string,
    ): Promise<{
      code: number;
      report: {
        diagnostics: { code: string; message: string }[];
        tests: { name: string; passed: boolean; failures: { message: string }[] }[];
      };
    }> => {
      const out: string[] = [];
      const code = await runPipeTests(
        { inputs: [path.join(project, folder)], coverage: false, format: 'json', color: false, registry },
        { out: (t) => out.push(t), err: () => undefined },
      );
      return { code, report: JSON.parse(out.join('')) as never };
    };

    it('runs tests that mock the connector and start from the trigger', async () => {
      const { code, report } = await run('ok');
      expect(report.tests.map((t) => [t.name, t.passed, t.failures.map((f) => f.message)])).toEqual([
        ['greets loudly', true, []],
        ['its message comes from the trigger', true, []],
      ]);
      expect(code).toBe(0);
    });

    it('fails a test that lets the connector reach the network (its x-pipe-test rule)', async () => {
      const { code, report } = await run('unmocked');
      expect(code).toBe(1);
      expect(report.tests[0]?.failures.map((f) => f.message).join('\n')).toContain('it shouts across the network');
    });

    it("checks a mock against the connector's output shape", async () => {
      const { code, report } = await run('misfit');
      expect(code).toBe(1);
      expect(report.diagnostics.map((d) => `${d.code} ${d.message}`).join('\n')).toMatch(
        /PIPE7012 the mock of `loud` does not fit the output of `shout`/,
      );
    });
  });
});
