/**
 * Each connector's schema says what its `run` does with the incoming message (`"message"`); the
 * compiler relies on it to build only the parts of an HTTP envelope a pipeline can read
 * (compiler/check/envelope-demand.ts). Here every connector's `run` gets a message that records
 * any look inside it: a connector declared not to read it (or not when `payload` is given) must
 * not look, and one declared to pass it through must return that very message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext as agentContext } from '../agent/test-support/context.js';
import { fakeContext } from '../service/test-support/fake-context.js';
import type { ExecutionContext, Json, JsonObject } from '../types.js';

interface MessageUse {
  readonly read: 'always' | 'never' | { readonly unless: string };
  readonly passedThrough?: boolean;
}

const CONNECTORS = new URL('.', import.meta.url);
const declared = new Map<string, MessageUse | undefined>(
  readdirSync(CONNECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => [d.name, (JSON.parse(readFileSync(new URL(`${d.name}/schema.json`, CONNECTORS), 'utf8')) as { message?: MessageUse }).message]),
);

/** A message whose every look (read, key listing, `in`, prototype, clone) is recorded. */
function watchedMessage(): { message: Json; looks: string[] } {
  const looks: string[] = [];
  const record = (what: string) => (...args: unknown[]): never => {
    looks.push(`${what} ${String(args[1] ?? '')}`);
    throw new Error(`the message was looked at: ${what} ${String(args[1] ?? '')}`);
  };
  const message = new Proxy({ secret: 'x' }, {
    // `then` is what a promise resolved with the message asks (an async run returning it), not the connector.
    get: (target, key, receiver) => (key === 'then' ? undefined : record('get')(target, key, receiver)),
    has: record('has'), ownKeys: record('ownKeys'), getOwnPropertyDescriptor: record('getOwnPropertyDescriptor'),
    getPrototypeOf: record('getPrototypeOf'), set: record('set'), defineProperty: record('defineProperty'), deleteProperty: record('deleteProperty'),
  }) as unknown as Json;
  return { message, looks };
}

type Run = (params: JsonObject, message: Json, ctx: ExecutionContext) => Json | Promise<Json>;

async function runOf(connector: string): Promise<Run> {
  const module = (await import(/* @vite-ignore */ new URL(`${connector}/${connector}.ts`, CONNECTORS).href)) as { run: Run };
  return module.run;
}

let server: Server;
let baseUrl: string;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'message-use-'));
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(workDir, { recursive: true, force: true });
});

/**
 * A run of each connector that does not read its message by its declaration: `read: never`, or
 * with the parameter that replaces the message given.
 */
const scenarios: Record<string, () => { params: JsonObject; ctx: ExecutionContext }> = {
  agent: () => ({ params: { model: 'mock:any', user: 'hi' }, ctx: agentContext(workDir) }),
  assert: () => ({ params: { condition: true }, ctx: fakeContext().ctx }),
  execute: () => ({
    params: { pipeline: 'other', payload: { a: 1 } },
    ctx: fakeContext({ services: { ...fakeContext().ctx.services, execute: async (_name: string, payload: Json) => ({ echoed: payload }) } }).ctx,
  }),
  hash: () => ({ params: { operation: 'sha256', value: 'text' }, ctx: fakeContext().ctx }),
  jslt: () => ({ params: { transform: ((input: Json) => input) as unknown as Json, payload: { a: 1 } }, ctx: fakeContext().ctx }),
  'json-generator': () => ({ params: { json: { a: 1 } }, ctx: fakeContext().ctx }),
  jwt: () => ({ params: { operation: 'decode', token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' }, ctx: fakeContext().ctx }),
  log: () => ({ params: { message: 'hello', level: 'info' }, ctx: fakeContext().ctx }),
  publish: () => ({ params: { event: 'done', payload: { a: 1 } }, ctx: fakeContext().ctx }),
  rest: () => ({ params: { url: baseUrl, method: 'GET' }, ctx: fakeContext().ctx }),
  store: () => ({ params: { target: 'things.find', query: {} }, ctx: fakeContext().ctx }),
  validate: () => ({ params: { validator: (() => true) as unknown as Json, payload: { a: 1 } }, ctx: fakeContext().ctx }),
};

describe('connectors use their incoming message as their schema declares', () => {
  it('every connector declares it', () => {
    for (const [name, use] of declared) expect(use, `${name}/schema.json has no "message"`).toBeDefined();
  });

  it('every connector that can run without reading its message has a scenario here', () => {
    const quiet = [...declared].filter(([, use]) => use !== undefined && use.read !== 'always').map(([name]) => name).sort();
    expect(Object.keys(scenarios).sort()).toEqual(quiet);
  });

  it.each(Object.keys(scenarios))('%s: does not look at the message, and returns it when it passes it through', async (name) => {
    const use = declared.get(name) as MessageUse;
    const { params, ctx } = scenarios[name]!();
    if (typeof use.read === 'object') expect(params[use.read.unless], `the scenario gives \`${use.read.unless}\``).toBeDefined();
    const { message, looks } = watchedMessage();
    const run = await runOf(name);
    const output = await run(params, message, ctx);
    expect(looks).toEqual([]);
    // compared by identity here: expect() would look inside the message itself
    expect(output === message).toBe(use.passedThrough === true);
  });
});
