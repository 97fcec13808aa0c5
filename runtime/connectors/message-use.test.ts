/**
 * Each connector's schema says what its `run` does with the incoming message (`"message"`); the
 * compiler relies on it to build only the parts of an HTTP envelope a pipeline can read
 * (compiler/check/envelope-demand.ts). Here every connector's `run` gets a message that records
 * any look inside it: a connector declared not to read it (or not when `payload` is given) must
 * not look, and one declared to pass it through must return that very message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext, Json, JsonObject } from '../types.js';
import type { MessageUseScenario } from './test-support/message-use-scenario.js';

interface MessageUse {
  readonly read: 'always' | 'never' | { readonly unless: string };
  readonly passedThrough?: boolean;
}

const CONNECTORS = new URL('.', import.meta.url);
const declared = new Map<string, MessageUse | undefined>(
  readdirSync(CONNECTORS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(new URL(`${d.name}/schema.json`, CONNECTORS)))
    .map((d) => [
      d.name,
      (JSON.parse(readFileSync(new URL(`${d.name}/schema.json`, CONNECTORS), 'utf8')) as { message?: MessageUse })
        .message,
    ]),
);

/** A message whose every look (read, key listing, `in`, prototype, clone) is recorded. */
function watchedMessage(): { message: Json; looks: string[] } {
  const looks: string[] = [];
  const record =
    (what: string) =>
    (...args: unknown[]): never => {
      looks.push(`${what} ${String(args[1] ?? '')}`);
      throw new Error(`the message was looked at: ${what} ${String(args[1] ?? '')}`);
    };
  const message = new Proxy(
    { secret: 'x' },
    {
      // `then` is what a promise resolved with the message asks (an async run returning it), not the connector.
      get: (target, key, receiver) => (key === 'then' ? undefined : record('get')(target, key, receiver)),
      has: record('has'),
      ownKeys: record('ownKeys'),
      getOwnPropertyDescriptor: record('getOwnPropertyDescriptor'),
      getPrototypeOf: record('getPrototypeOf'),
      set: record('set'),
      defineProperty: record('defineProperty'),
      deleteProperty: record('deleteProperty'),
    },
  ) as unknown as Json;
  return { message, looks };
}

type Run = (params: JsonObject, message: Json, ctx: ExecutionContext) => Json | Promise<Json>;

async function runOf(connector: string): Promise<Run> {
  const module = (await import(/* @vite-ignore */ new URL(`${connector}/${connector}.ts`, CONNECTORS).href)) as {
    run: Run;
  };
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
 * A run of each connector that does not read its message by its declaration (`read: never`, or
 * with the parameter that replaces the message given): `messageUseScenario` of its folder's
 * test-support.ts, so a new connector brings its own.
 */
async function scenarioOf(name: string): Promise<MessageUseScenario | undefined> {
  const file = new URL(`${name}/test-support.ts`, CONNECTORS);
  if (!existsSync(file)) return undefined;
  return ((await import(/* @vite-ignore */ file.href)) as { messageUseScenario?: MessageUseScenario })
    .messageUseScenario;
}

const quiet = [...declared]
  .filter(([, use]) => use !== undefined && use.read !== 'always')
  .map(([name]) => name)
  .sort();

describe('connectors use their incoming message as their schema declares', () => {
  it('every connector declares it', () => {
    for (const [name, use] of declared) expect(use, `${name}/schema.json has no "message"`).toBeDefined();
  });

  it.each(quiet)('%s: does not look at the message, and returns it when it passes it through', async (name) => {
    const use = declared.get(name) as MessageUse;
    const scenario = await scenarioOf(name);
    expect(
      scenario,
      `${name}/test-support.ts exports no messageUseScenario (a run that does not read the message)`,
    ).toBeDefined();
    const { params, ctx } = (scenario as MessageUseScenario)({ workDir, baseUrl });
    if (typeof use.read === 'object')
      expect(params[use.read.unless], `the scenario gives \`${use.read.unless}\``).toBeDefined();
    const { message, looks } = watchedMessage();
    const run = await runOf(name);
    const output = await run(params, message, ctx);
    expect(looks).toEqual([]);
    // compared by identity here: expect() would look inside the message itself
    expect(output === message).toBe(use.passedThrough === true);
  });
});
