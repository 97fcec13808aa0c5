/**
 * End to end: the token-usage example built with the real CLI and served on 127.0.0.1 with the
 * default (SQLite) backends. An agent call publishes the seed's token-usage payload as an event;
 * the cost-analysis pipeline stores it; the HTTP endpoints read the events and the totals back.
 * The model is the scripted OpenAI-compatible server or, as `npm start` runs it, the mock model.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chatCompletion,
  startScriptedOpenAi,
  type ScriptedServer,
  type ScriptStep,
} from '../../runtime/agent/test-support/scripted-openai-server.js';
import { buildService, ManualClock, type BuiltService } from '../../test/e2e/in-process.js';
import { REPO_ROOT, tempDir } from '../../test/e2e/service-process.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/token-usage');
const START = Date.UTC(2026, 2, 1, 12, 0, 0);

interface Served {
  readonly url: string;
  stop(): Promise<void>;
}

async function serveExample(
  built: BuiltService,
  env: Record<string, string>,
  dataDir: string,
  clock = new ManualClock(START),
): Promise<Served> {
  const service = await built.runtime.createService(built.definition, {
    env: { LOG_LEVEL: 'silent', ...env },
    dataDir,
    clock,
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

function summarize(url: string, text: string): Promise<Response> {
  return fetch(`${url}/token-usage/summaries`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
}

interface ModelTotals {
  _id: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost: number;
}

async function totals(url: string): Promise<ModelTotals[]> {
  const res = await fetch(`${url}/token-usage/totals`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { models: ModelTotals[] }).models;
}

/** Events are consumed asynchronously: poll the totals until `ready` holds (or 5 s pass). */
async function totalsWhen(url: string, ready: (models: ModelTotals[]) => boolean): Promise<ModelTotals[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const models = await totals(url);
    if (ready(models) || Date.now() > deadline) return models;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many token-usage events the service has published (its Prometheus counter). */
async function publishedTokenUsage(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('pipec_events_published_total{') && l.includes('event="token-usage"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const callsOf = (models: ModelTotals[]): number => models.reduce((n, m) => n + m.calls, 0);

describe('token-usage example', () => {
  let built: BuiltService;

  beforeAll(async () => {
    built = await buildService([EXAMPLE], 'token-usage');
  });

  describe('with a scripted OpenAI-compatible model', () => {
    const replies: ScriptStep[] = [];
    let model: ScriptedServer;
    const dataDir = tempDir('token-usage-data');

    beforeAll(async () => {
      model = await startScriptedOpenAi(
        Array.from(
          { length: 20 },
          () => () =>
            replies.shift() ?? {
              status: 500,
              headers: { 'x-should-retry': 'false' },
              body: { error: { message: 'no reply queued' } },
            },
        ),
      );
    });

    afterAll(async () => {
      await model?.close();
    });

    it('publishes the seed payload with the cost from the price table, stores it, and sums it per model', async () => {
      const clock = new ManualClock(START);
      const served = await serveExample(
        built,
        { TOKEN_USAGE_AGENT_MODEL: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-test-usage', OPENAI_BASE_URL: model.baseUrl },
        dataDir,
        clock,
      );
      try {
        replies.push(chatCompletion({ content: 'Orders ship in two days.', usage: { prompt: 1200, completion: 300 } }));
        const res = await summarize(served.url, 'Our orders ship within two business days from the warehouse.');
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          summary: 'Orders ship in two days.',
          tokenUsage: { inputTokenCount: 1200, outputTokenCount: 300, totalTokenCount: 1500 },
        });
        expect(model.requests[0]?.body).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 256 });

        clock.advance(60_000);
        replies.push(chatCompletion({ content: 'Second.', usage: { prompt: 800, completion: 200 } }));
        expect((await summarize(served.url, 'Another text.')).status).toBe(200);

        const models = await totalsWhen(served.url, (m) => callsOf(m) === 2);
        expect(models).toHaveLength(1);
        const [mini] = models;
        expect(mini).toMatchObject({
          _id: 'gpt-4o-mini',
          calls: 2,
          input_tokens: 2000,
          output_tokens: 500,
          total_tokens: 2500,
        });
        // gpt-4o-mini: 0.15 USD per million input tokens, 0.60 per million output tokens.
        expect(mini?.cost).toBeCloseTo((2000 * 0.15 + 500 * 0.6) / 1e6, 12);

        const events = (await (await fetch(`${served.url}/token-usage/events`)).json()) as {
          events: Array<Record<string, unknown>>;
        };
        expect(events.events).toHaveLength(2);
        const [latest, first] = events.events;
        expect(first).toMatchObject({
          timestamp: START,
          step_name: 'summarize',
          model: 'gpt-4o-mini',
          tokens: { input: 1200, output: 300, total: 1500 },
        });
        expect(first?.['cost_calc']).toBeCloseTo((1200 * 0.15 + 300 * 0.6) / 1e6, 12);
        expect(latest).toMatchObject({ timestamp: START + 60_000, tokens: { input: 800, output: 200, total: 1000 } });
      } finally {
        await served.stop();
      }
    });

    it("a model missing from the price table is priced at the table's default", async () => {
      // Same data folder: the totals now hold both models.
      const served = await serveExample(
        built,
        { TOKEN_USAGE_AGENT_MODEL: 'local-llama', OPENAI_API_KEY: 'sk-test-usage', OPENAI_BASE_URL: model.baseUrl },
        dataDir,
      );
      try {
        replies.push(chatCompletion({ content: 'Local summary.', usage: { prompt: 1000, completion: 1000 } }));
        expect((await summarize(served.url, 'Text for the local model.')).status).toBe(200);
        const models = await totalsWhen(served.url, (m) => callsOf(m) === 3);
        expect(models.map((m) => [m._id, m.calls])).toEqual([
          ['gpt-4o-mini', 2],
          ['local-llama', 1],
        ]);
        // default: 1 USD per million input tokens, 4 per million output tokens.
        expect(models[1]?.cost).toBeCloseTo((1000 * 1 + 1000 * 4) / 1e6, 12);
      } finally {
        await served.stop();
      }
    });

    it('a failed model call publishes nothing', async () => {
      const served = await serveExample(
        built,
        { TOKEN_USAGE_AGENT_MODEL: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-test-usage', OPENAI_BASE_URL: model.baseUrl },
        dataDir,
      );
      try {
        replies.push({ status: 400, body: { error: { message: 'bad request' } } });
        const res = await summarize(served.url, 'This call fails.');
        expect(res.status).toBe(502);
        // Publishing is a step of the request: once it is answered, nothing more can be published.
        expect(await publishedTokenUsage(served.url)).toBe(0);
        // The counter does count: the next call succeeds and publishes its event.
        replies.push(chatCompletion({ content: 'Recovered.', usage: { prompt: 10, completion: 5 } }));
        expect((await summarize(served.url, 'This call works.')).status).toBe(200);
        expect(await publishedTokenUsage(served.url)).toBe(1);
        expect(callsOf(await totalsWhen(served.url, (m) => callsOf(m) === 4))).toBe(4);
      } finally {
        await served.stop();
      }
    });
  });

  describe('offline, as npm start runs it (mock model, no key)', () => {
    it('records the estimated tokens of the mock model and their cost', async () => {
      const served = await serveExample(built, {}, tempDir('token-usage-mock'));
      try {
        const res = await summarize(served.url, 'A text of a few words to summarise offline.');
        expect(res.status).toBe(200);
        const body = (await res.json()) as {
          summary: string;
          tokenUsage: { inputTokenCount: number; outputTokenCount: number; totalTokenCount: number };
        };
        // The agent's offline answer: the text itself (short enough to stay whole).
        expect(body.summary).toBe('A text of a few words to summarise offline.');
        expect(body.tokenUsage.inputTokenCount).toBeGreaterThan(0);
        const [mock] = await totalsWhen(served.url, (m) => callsOf(m) === 1);
        expect(mock).toMatchObject({ _id: 'mock:summarizer', calls: 1, total_tokens: body.tokenUsage.totalTokenCount });
        expect(mock?.cost).toBeCloseTo(
          (body.tokenUsage.inputTokenCount * 0.15 + body.tokenUsage.outputTokenCount * 0.6) / 1e6,
          12,
        );
      } finally {
        await served.stop();
      }
    });
  });
});
