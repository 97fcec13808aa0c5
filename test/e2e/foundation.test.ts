/**
 * End to end: `pipec build` an example, start `node out/…/server.js` on a free port, and check real
 * HTTP answers — including every bad input the foundation promises to handle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startServer, tempDir, type RunningService } from './service-process.js';

describe('hello example, built and served', () => {
  let service: RunningService;
  let outDir: string;

  beforeAll(async () => {
    outDir = path.join(tempDir('hello'), 'out');
    const built = await runCli(['build', path.join(REPO_ROOT, 'examples/hello'), '--out', outDir]);
    expect(built.code, built.output.err.join('\n')).toBe(0);
    service = await startServer(outDir);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  const post = (p: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${service.url}${p}`, { method: 'POST', body, headers });

  it('writes a self-contained, readable service', () => {
    for (const file of [
      'server.js',
      'server.ts',
      'service.js',
      'package.json',
      'pipelines/hello.ts',
      'pipelines/hello.js',
      'runtime/index.js',
    ]) {
      expect(fs.existsSync(path.join(outDir, file)), file).toBe(true);
    }
    const source = fs.readFileSync(path.join(outDir, 'pipelines/hello.ts'), 'utf8');
    // provenance is relative to the project folder (here the folder built), not the current directory
    expect(source).toMatch(/\/\/ hello\.pipe:\d+ — log/);
    const pkg = JSON.parse(fs.readFileSync(path.join(outDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['hono', '@hono/node-server', 'pino']));
    expect(Object.keys(pkg.dependencies)).not.toContain('ts-morph');
  });

  it('answers a valid request through choice and respond', async () => {
    const res = await post('/hello', JSON.stringify({ name: 'Ana', language: 'pt' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ greeting: 'Olá, Ana!' });
    const en = await post('/hello', JSON.stringify({ name: 'Bo' }));
    expect(await en.json()).toEqual({ greeting: 'Hello, Bo!' });
  });

  it('wraps a final message in { body } and reads path parameters', async () => {
    const res = await fetch(`${service.url}/hello/Zoe`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { greeting: 'Hello, Zoe!', length: 3 } });
  });

  it('malformed JSON → 400 naming the problem', async () => {
    const res = await post('/hello', '{"name": ');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string };
    expect(body.error.toLowerCase()).toContain('json');
  });

  it('a body over the limit → 413', async () => {
    const res = await post('/hello', JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) }));
    expect(res.status).toBe(413);
  });

  it('unknown route → 404', async () => {
    const res = await fetch(`${service.url}/nowhere`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('json');
  });

  it('a body failing the trigger schema → 422 listing the violations', async () => {
    const res = await post('/hello', JSON.stringify({ name: '', extra: 1 }));
    expect(res.status).toBe(422);
    const body = (await res.json()) as { violations: { path: string; message: string }[] };
    expect(body.violations.length).toBeGreaterThanOrEqual(2);
  });

  it('an exception inside a pipeline → 500 with the error object and execution id; serving goes on', async () => {
    const res = await post('/divide', JSON.stringify({ a: 1, b: 0 }));
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; executionId: string; code: number };
    expect(body.code).toBe(500);
    expect(body.executionId).toMatch(/[0-9a-f-]{36}/);
    // The failure is logged with its execution id (log lines arrive asynchronously from the child).
    const deadline = Date.now() + 5000;
    while (!service.logs().includes(body.executionId) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(service.logs()).toContain(body.executionId);
    const again = await post('/divide', JSON.stringify({ a: 6, b: 3 }));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ body: { result: 2 } });
  });

  it('fail → its status and message', async () => {
    const res = await post('/refuse', '{}');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe('not today');
  });

  it('health, readiness and Prometheus metrics', async () => {
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/pipec_executions_total\{[^}]*pipeline="hello"/);
  });

  it('logs are JSON lines carrying the execution id', () => {
    const lines = service
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const withExecution = lines.map((l) => JSON.parse(l) as { executionId?: string }).filter((l) => l.executionId);
    expect(withExecution.length).toBeGreaterThan(0);
  });
});
