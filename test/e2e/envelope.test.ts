/**
 * The HTTP envelope built on demand, end to end: the compiler lists the fields a pipeline reads in
 * its trigger spec, and each pipeline still sees every field it reads — also a pipeline whose
 * answer is the envelope itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/service/create-service.js';
import { createFakeBackends } from '../../runtime/service/test-support/fake-backends.js';
import { buildService, postJson, type BuiltService } from './in-process.js';

describe('HTTP envelope fields on demand', () => {
  let built: BuiltService;
  let service: Service;
  beforeAll(async () => {
    built = await buildService([path.join(import.meta.dirname, 'fixtures/envelope.pipe')], 'envelope');
    service = await built.runtime.createService(built.definition, {
      backends: createFakeBackends(),
      startTriggers: false,
      dataDir: built.outDir,
    });
  }, 60_000);
  afterAll(async () => service?.stop(100));

  const triggerLine = (pipeline: string): string =>
    fs
      .readFileSync(path.join(built.outDir, 'pipelines', `${pipeline}.ts`), 'utf8')
      .split('\n')
      .find((l) => l.includes('trigger:')) ?? '';

  it('lists what each pipeline reads in its trigger spec', () => {
    expect(triggerLine('body-only')).toContain('envelope: ["body"]');
    expect(triggerLine('some-fields')).toContain('envelope: ["body", "headers", "queryAndPath"]');
    expect(triggerLine('echo')).not.toContain('envelope: [');
  });

  it('gives each pipeline the fields it reads', async () => {
    expect(await postJson(service, '/envelope/body-only', { name: 'Ana' })).toEqual({
      status: 200,
      body: { name: 'Ana' },
    });
    expect(await postJson(service, '/envelope/some/7', { n: 1 }, { 'x-agent': 'probe' })).toEqual({
      status: 200,
      body: { agent: 'probe', id: '7', body: { n: 1 } },
    });
  });

  it('answers with the whole envelope when that is the final message', async () => {
    const res = await postJson(service, '/envelope/echo?q=1', { name: 'Ana' }, { 'x-agent': 'probe' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      body: {
        body: { name: 'Ana' },
        headers: { 'x-agent': 'probe' },
        queryAndPath: { q: '1' },
        method: 'POST',
        path: '/envelope/echo',
        contentType: 'application/json',
      },
    });
  });
});
