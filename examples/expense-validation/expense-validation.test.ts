/**
 * End to end: the expense-validation example built with the real CLI, served on 127.0.0.1 and
 * called over real HTTP with file uploads. The model is the scripted OpenAI-compatible server
 * (it records what the service sent) or, as `npm start` runs it, the offline `mock:` model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chatCompletion,
  startScriptedOpenAi,
  type ScriptedServer,
  type ScriptStep,
} from '../../runtime/agent/test-support/scripted-openai-server.js';
import { buildService, type BuiltService } from '../../test/e2e/in-process.js';
import { REPO_ROOT, tempDir } from '../../test/e2e/service-process.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/expense-validation');
const SAMPLES = path.join(EXAMPLE, 'samples');
const SAMPLE_PDF = fs.readFileSync(path.join(SAMPLES, 'sales-trip-report.pdf'));
const ROUTE = '/expense-validation/reports';

interface Served {
  readonly url: string;
  stop(): Promise<void>;
}

async function serveExample(built: BuiltService, env: Record<string, string>): Promise<Served> {
  const service = await built.runtime.createService(built.definition, {
    env: { LOG_LEVEL: 'silent', ...env },
    dataDir: tempDir('expense-data'),
  });
  await service.start();
  const server = await built.runtime.serve(service, { port: 0, hostname: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${server.port}`,
    stop: async () => {
      await service.stop(1000);
      await server.close();
    },
  };
}

function upload(url: string, fileName: string, bytes: Uint8Array, type = 'application/pdf'): Promise<Response> {
  const form = new FormData();
  form.append('report', new Blob([bytes], { type }), fileName);
  return fetch(`${url}${ROUTE}`, { method: 'POST', body: form });
}

function expenseReply(total: number, usage = { prompt: 900, completion: 120 }): ScriptStep {
  return chatCompletion({
    content: JSON.stringify({
      employee_name: 'Ana Souza',
      department: 'Sales',
      total,
      trip_type: 'Domestic',
      itemized_expenses: [{ date: '2026-03-02', description: 'Flight', category: 'travel', amount: total }],
    }),
    usage,
  });
}

describe('expense-validation example', () => {
  let built: BuiltService;

  beforeAll(async () => {
    built = await buildService([EXAMPLE], 'expense-validation');
  });

  describe('with a scripted OpenAI-compatible model', () => {
    const replies: ScriptStep[] = [];
    let model: ScriptedServer;
    let served: Served;

    beforeAll(async () => {
      // Each request takes the next queued reply; an empty queue answers 500 (no retry).
      model = await startScriptedOpenAi(
        Array.from(
          { length: 50 },
          () => () =>
            replies.shift() ?? {
              status: 500,
              headers: { 'x-should-retry': 'false' },
              body: { error: { message: 'no reply queued' } },
            },
        ),
      );
      served = await serveExample(built, {
        EXPENSE_AGENT_MODEL: 'gpt-4o-mini',
        OPENAI_API_KEY: 'sk-test-expense',
        OPENAI_BASE_URL: model.baseUrl,
      });
    });

    afterAll(async () => {
      await served?.stop();
      await model?.close();
    });

    it('a non-PDF upload is rejected with 422 and never reaches the model', async () => {
      const before = model.requests.length;
      const res = await upload(served.url, 'receipt.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'image/png');
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ status: 422, decision: 'REJECTED' });
      const renamed = await upload(served.url, 'report.pdf.txt', SAMPLE_PDF, 'text/plain');
      expect(renamed.status).toBe(422);
      expect(model.requests.length).toBe(before);
    });

    it('sends the PDF with temperature 0.3, 1024 max output tokens and the expense schema, then auto-approves < 500', async () => {
      replies.push(expenseReply(412.5));
      const before = model.requests.length;
      const res = await upload(served.url, 'march.pdf', SAMPLE_PDF);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 200,
        decision: 'APPROVED',
        employee: 'Ana Souza',
        department: 'Sales',
        total: 412.5,
        message: 'auto-approved: the total is below 500',
      });
      expect(model.requests.length).toBe(before + 1);
      const sent = model.requests[before]?.body;
      expect(sent.model).toBe('gpt-4o-mini');
      expect(sent.temperature).toBe(0.3);
      expect(sent.max_completion_tokens).toBe(1024);
      expect(sent.response_format.type).toBe('json_schema');
      expect(sent.response_format.json_schema.name).toBe('expense_report');
      expect(Object.keys(sent.response_format.json_schema.schema.properties)).toEqual([
        'employee_name',
        'department',
        'total',
        'trip_type',
        'itemized_expenses',
      ]);
      const userParts = sent.messages.find((m: { role: string }) => m.role === 'user').content as Array<{
        type: string;
        file?: { file_data: string };
      }>;
      const filePart = userParts.find((p) => p.type === 'file');
      expect(filePart?.file?.file_data).toBe(`data:application/pdf;base64,${SAMPLE_PDF.toString('base64')}`);
    });

    it('routes 500 ≤ total < 2000 to the manager and ≥ 2000 to the director', async () => {
      replies.push(expenseReply(500), expenseReply(1999.99), expenseReply(2000));
      const decisions: Array<[number, unknown]> = [];
      for (let i = 0; i < 3; i++) {
        const res = await upload(served.url, `report-${i}.pdf`, SAMPLE_PDF);
        const body = (await res.json()) as { decision: string; total: number };
        decisions.push([res.status, `${body.decision} ${body.total}`]);
      }
      expect(decisions).toEqual([
        [202, 'MANAGER_APPROVAL 500'],
        [202, 'MANAGER_APPROVAL 1999.99'],
        [202, 'DIRECTOR_APPROVAL 2000'],
      ]);
    });

    it('no route matches (a negative total) → the error path', async () => {
      replies.push(expenseReply(-10));
      const res = await upload(served.url, 'refund.pdf', SAMPLE_PDF);
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ status: 422, decision: 'ERROR', total: -10 });
    });

    it('a reply outside the schema gets one repair round; a still-invalid reply fails with 502', async () => {
      const invalid = chatCompletion({ content: JSON.stringify({ employee_name: 'Ana Souza', total: 'a lot' }) });
      replies.push(invalid, expenseReply(120));
      const repaired = await upload(served.url, 'repair.pdf', SAMPLE_PDF);
      expect(repaired.status).toBe(200);
      expect(((await repaired.json()) as { total: number }).total).toBe(120);
      const repairRequest = model.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
      expect(JSON.stringify(repairRequest.messages.at(-1)?.content)).toContain('department');

      replies.push(invalid, invalid);
      const failed = await upload(served.url, 'broken.pdf', SAMPLE_PDF);
      expect(failed.status).toBe(502);
      expect(await failed.json()).toMatchObject({ code: 502 });
    });

    it('a file named .pdf that is not a PDF fails with 415 before any model call', async () => {
      const before = model.requests.length;
      const res = await upload(served.url, 'fake.pdf', new TextEncoder().encode('just text'));
      expect(res.status).toBe(415);
      expect(model.requests.length).toBe(before);
    });
  });

  describe('offline, as npm start runs it (mock model, no key)', () => {
    let served: Served;

    beforeAll(async () => {
      served = await serveExample(built, {});
    });

    afterAll(async () => {
      await served?.stop();
    });

    // The three sample reports shipped with the example, and what the agent's mock answers say they hold.
    it.each([
      [
        'sales-trip-report.pdf',
        200,
        { decision: 'APPROVED', employee: 'Ana Souza', department: 'Sales', total: 412.5 },
      ],
      [
        'client-visit-report.pdf',
        202,
        { decision: 'MANAGER_APPROVAL', employee: 'Bruno Lima', department: 'Engineering', total: 1240 },
      ],
      [
        'conference-trip-report.pdf',
        202,
        { decision: 'DIRECTOR_APPROVAL', employee: 'Carla Costa', department: 'Marketing', total: 4870 },
      ],
    ])('%s reaches its route: %i', async (file, status, expected) => {
      const res = await upload(served.url, file, fs.readFileSync(path.join(SAMPLES, file)));
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ status, ...expected });
    });

    it('any other PDF gets a plausible made-up report, the same one every time, routed by its total', async () => {
      const other = new TextEncoder().encode(SAMPLE_PDF.toString('latin1').replace('Ana Souza', 'Ana Sousa'));
      const first = await upload(served.url, 'march.pdf', other);
      const body = (await first.json()) as {
        status: number;
        decision: string;
        total: number;
        employee: string;
        department: string;
        message: string;
      };
      expect(Object.keys(body).sort()).toEqual(['decision', 'department', 'employee', 'message', 'status', 'total']);
      expect(first.status).toBe(body.status);
      expect(body.total).toBeGreaterThan(0);
      expect(body.employee).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
      const expected = body.total < 500 ? 'APPROVED' : body.total < 2000 ? 'MANAGER_APPROVAL' : 'DIRECTOR_APPROVAL';
      expect(body.decision).toBe(expected);
      expect(await (await upload(served.url, 'march.pdf', other)).json()).toEqual(body);
    });

    it('still rejects a non-PDF upload with 422', async () => {
      const res = await upload(served.url, 'notes.txt', new TextEncoder().encode('hello'), 'text/plain');
      expect(res.status).toBe(422);
    });
  });
});
