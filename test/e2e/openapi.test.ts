/**
 * Issue 22, item 6: the OpenAPI 3.1 document of a service's HTTP routes. `pipec openapi` prints
 * it, the built service serves the same at /openapi.json, an OpenAPI validator
 * (@seriousme/openapi-schema-validator) accepts it, and every documented route answers, with a
 * status the document lists for it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServer, tempDir, type RunningService } from './service-process.js';

const SOURCE = `schema Order {
  type: "object", additionalProperties: false, required: ["sku", "qty"],
  properties: { sku: { type: "string", minLength: 1 }, qty: { type: "integer", minimum: 1 } },
}

account shop_keys: api-key { keys: ["k-openapi-test"] }

pipeline create-order {
  trigger http {
    method: POST, path: "/orders", body: Order,
    auth: { type: api-key, account: shop_keys, in: header, name: "x-api-key" },
  }
  choice {
    when {{ message.body.qty > 100 }} { fail 409 "too many" }
    otherwise { respond 201 { id: "o-1", sku: {{ message.body.sku }} } }
  }
}

pipeline get-order {
  trigger http { method: GET, path: "/orders/:id" }
  choice {
    when {{ message.queryAndPath.id == "o-1" }} {
      respond 200 { id: {{ message.queryAndPath.id }}, verbose: {{ message.queryAndPath.verbose ?? "no" }} }
    }
    otherwise { respond 404 { error: "no such order" } }
  }
}

pipeline ping {
  trigger http { method: [GET, HEAD], path: "/ping" }
  json-generator { json: { ok: true } }
}
`;

type Operation = {
  parameters?: { name: string; in: string }[];
  responses: Record<string, unknown>;
  security?: unknown[];
  requestBody?: unknown;
};

describe('OpenAPI 3.1 from the HTTP triggers', () => {
  let dir = '';
  let document: {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: Record<string, Record<string, unknown>>;
  };
  let service: RunningService | undefined;
  const pipec = (...args: string[]): string =>
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'pipec.js'), ...args], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
    });

  beforeAll(async () => {
    dir = tempDir('openapi');
    fs.writeFileSync(path.join(dir, 'shop.pipe'), SOURCE);
    document = JSON.parse(pipec('openapi', 'shop.pipe')) as typeof document;
    pipec('build', 'shop.pipe', '--out', 'out/shop');
    service = await startServer(path.join(dir, 'out', 'shop'));
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is a valid OpenAPI 3.1 document, and the one the service serves', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const served = await fetch(`${(service as RunningService).url}/openapi.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(document);
    // A file too.
    pipec('openapi', 'shop.pipe', '--out', 'api.json');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'api.json'), 'utf8'))).toEqual(document);
  });

  it('documents methods, parameters, body schemas, auth and every answer of each pipeline', () => {
    expect(Object.keys(document.paths).sort()).toEqual(['/orders', '/orders/{id}', '/ping']);
    const create = document.paths['/orders']?.['post'] as Operation;
    expect(create.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } },
    });
    expect(document.components['schemas']?.['Order']).toMatchObject({ required: ['sku', 'qty'] });
    expect(create.security).toEqual([{ 'apiKey-header-x-api-key': [] }]);
    expect(document.components['securitySchemes']).toEqual({
      'apiKey-header-x-api-key': { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    // respond 201, fail 409, the trigger's failures that apply (auth, body), and the service's.
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '409', '413', '422', '500', '503']);
    const get = document.paths['/orders/{id}']?.['get'] as Operation;
    expect(get.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'verbose', in: 'query', required: false, schema: { type: 'string' } },
    ]);
    expect(Object.keys(get.responses)).toEqual(['200', '400', '404', '413', '500', '503']);
    expect(get.requestBody).toBeUndefined();
    // No respond step: the last message is the 200 answer; two methods, two operations.
    expect(Object.keys(document.paths['/ping'] ?? {})).toEqual(['get', 'head']);
    expect(document.paths['/ping']?.['get']?.responses).toHaveProperty('200');
  });

  it('every documented route answers with a status it documents', async () => {
    const url = (service as RunningService).url;
    const calls: { method: string; path: string; init: RequestInit; expected: number }[] = [
      {
        method: 'post',
        path: '/orders',
        init: {
          headers: { 'content-type': 'application/json', 'x-api-key': 'k-openapi-test' },
          body: '{"sku":"PEN","qty":2}',
        },
        expected: 201,
      },
      {
        method: 'post',
        path: '/orders',
        init: {
          headers: { 'content-type': 'application/json', 'x-api-key': 'k-openapi-test' },
          body: '{"sku":"PEN","qty":200}',
        },
        expected: 409,
      },
      {
        method: 'post',
        path: '/orders',
        init: { headers: { 'content-type': 'application/json' }, body: '{"sku":"PEN","qty":2}' },
        expected: 401,
      },
      { method: 'get', path: '/orders/o-1?verbose=yes', init: {}, expected: 200 },
      { method: 'get', path: '/orders/o-2', init: {}, expected: 404 },
      { method: 'get', path: '/ping', init: {}, expected: 200 },
      { method: 'head', path: '/ping', init: {}, expected: 200 },
    ];
    const called = new Set<string>();
    for (const call of calls) {
      const res = await fetch(`${url}${call.path}`, { ...call.init, method: call.method.toUpperCase() });
      await res.arrayBuffer();
      expect(res.status, `${call.method} ${call.path}`).toBe(call.expected);
      const documented = Object.entries(document.paths).find(([p]) =>
        new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(call.path.split('?')[0] ?? ''),
      );
      const operation = documented?.[1][call.method];
      expect(operation, `${call.method} ${call.path} is documented`).toBeDefined();
      expect(Object.keys(operation?.responses ?? {}), `${call.method} ${call.path}`).toContain(String(res.status));
      called.add(`${call.method} ${documented?.[0]}`);
    }
    const documentedOperations = Object.entries(document.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m} ${p}`),
    );
    expect([...called].sort()).toEqual(documentedOperations.sort());
  });
});
