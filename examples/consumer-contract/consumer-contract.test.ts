/**
 * The consumer-contract example end to end over HTTP: a valid feed reaches the consumer with only
 * the fields it needs; five kinds of invalid feed are refused with the Validator's documented
 * shape, run the error flow, and never reach the consumer.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startServer, tempDir, type RunningService } from '../../test/e2e/service-process.js';

describe('consumer-contract example', () => {
  let service: RunningService;

  beforeAll(async () => {
    const outDir = path.join(tempDir('consumer-contract'), 'out');
    const built = await runCli(['build', path.join(REPO_ROOT, 'examples/consumer-contract'), '--out', outDir]);
    expect(built.code, built.output.err.join('\n')).toBe(0);
    service = await startServer(outDir);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  const send = async (body: unknown) => {
    const res = await fetch(`${service.url}/consumer-contract/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const get = async (route: string) =>
    (await (await fetch(`${service.url}/consumer-contract/${route}`)).json()) as Record<string, unknown>;
  const eventually = async (check: () => Promise<boolean>) => {
    const deadline = Date.now() + 5000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached within 5 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('a valid feed reaches the consumer with only the fields it needs', async () => {
    const res = await send({
      products: [
        { code: 'P1', name: 'Pen', price: 2.5, stock: 10 },
        { code: 'P2', name: 'Pad' },
      ],
      supplier: 'x',
    });
    expect(res).toEqual({ status: 202, body: { accepted: 2 } });
    await eventually(async () => ((await get('catalog'))['products'] as unknown[]).length === 2);
    const products = (await get('catalog'))['products'] as Array<Record<string, unknown>>;
    expect(products.map(({ code, name }) => ({ code, name }))).toEqual([
      { code: 'P1', name: 'Pen' },
      { code: 'P2', name: 'Pad' },
    ]);
    expect(products[0]).not.toHaveProperty('price');
  });

  const invalid: Array<[string, unknown, string]> = [
    // Shaping keeps the fields the consumer needs: with none, an empty product list.
    ['no products field', { items: [{ code: 'X', name: 'Y' }] }, '$.products'],
    ['products is not an array', { products: 'P1,P2' }, '$.products'],
    ['an empty products array', { products: [] }, '$.products'],
    ['an item without code', { products: [{ code: 'P3', name: 'Ok' }, { name: 'No code' }] }, '$.products[1].code'],
    ['an item without name', { products: [{ code: 'P4' }] }, '$.products[0].name'],
  ];
  for (const [what, body, pathPrefix] of invalid) {
    it(`refuses ${what} with the Validator's shape and stops`, async () => {
      const before = ((await get('errors'))['count'] as number) ?? 0;
      const res = await send(body);
      expect(res.status).toBe(422);
      expect(res.body['error']).toBe('the message breaks the consumer contract');
      const validation = res.body['validation'] as Array<Record<string, unknown>>;
      expect(validation.length).toBeGreaterThan(0);
      for (const v of validation)
        expect(Object.keys(v).sort()).toEqual([
          'arguments',
          'code',
          'details',
          'message',
          'path',
          'schemaPath',
          'type',
        ]);
      expect(validation.some((v) => String(v['path']).startsWith(pathPrefix))).toBe(true);
      // Each message says where and what the contract expects — never a bare "$: null found".
      for (const v of validation)
        expect(String(v['message'])).toMatch(/^\$\S*: .*expected|is missing but it is required/);
      if (pathPrefix === '$.products')
        expect(validation.map((v) => v['message'])).toEqual(['$.products: 0 items found, at least 1 expected']);
      await eventually(async () => ((await get('errors'))['count'] as number) === before + 1);
      const catalog = (await get('catalog'))['products'] as Array<{ code: string }>;
      expect(catalog.map((p) => p.code).sort()).toEqual(['P1', 'P2']);
    });
  }
});
