/**
 * The start-up bundle of a built service (see runtime/launch.ts): the generated modules, the
 * runtime and the npm packages it loads at start, as one CommonJS file (bundle.ts), plus a V8 code
 * cache of it, so that a cold start reads two files and compiles almost nothing.
 *
 * Packages stay outside the bundle when they are native (better-sqlite3), ship files they read
 * beside themselves, or are loaded only on first use (RE2, the distributed backends, the
 * agent stack, the HTTP client, metrics and tracing exporters, the RabbitMQ, MQTT, Redis, SSH and
 * SMTP clients): the bundle `require`s those from node_modules when, and only when, they are needed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE_FILE } from '../../runtime/launch.js';
import { bundle } from './bundle.js';

/** Loaded on demand: neither on first use (native, own files) nor at start (lazy in the runtime). */
export const UNBUNDLED_PACKAGES: readonly string[] = [
  'better-sqlite3',
  're2js',
  'pg',
  '@nats-io/transport-node',
  '@nats-io/jetstream',
  '@nats-io/kv',
  'undici',
  'openai',
  '@modelcontextprotocol/sdk',
  'zod',
  'prom-client',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-http',
  // The messaging, cache, SFTP and e-mail connectors' clients, loaded on a connector's first use.
  'amqplib',
  'mqtt',
  'ioredis',
  'ssh2',
  'nodemailer',
];

/** Bundles the service written in `serviceDir` and writes its code cache; throws on any bundler warning. */
export async function bundleService(serviceDir: string): Promise<void> {
  const bundleFile = path.join(serviceDir, BUNDLE_FILE);
  const source = await bundle({
    entry: {
      contents: "export { startService } from './runtime/index.js';\nexport { service } from './service.js';\n",
      resolveDir: serviceDir,
    },
    outFile: bundleFile,
    unbundled: UNBUNDLED_PACKAGES,
  });
  fs.mkdirSync(path.dirname(bundleFile), { recursive: true });
  fs.writeFileSync(bundleFile, source);
  await writeCodeCache(serviceDir);
}

/** The code cache, made by the service's own runtime/code-cache.js in a node process of its own. */
async function writeCodeCache(serviceDir: string): Promise<void> {
  const { code, stderr } = await runNode([path.join(serviceDir, 'runtime', 'code-cache.js')], serviceDir);
  if (code !== 0) throw new Error(`could not make the code cache of ${serviceDir} (exit ${code}):\n${stderr}`);
}

function runNode(args: readonly string[], cwd: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    // The flags the service is started with: V8 rejects a cache made under other flags.
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stderr }));
  });
}
