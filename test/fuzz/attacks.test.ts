/**
 * Each attack of issue 19 against a built service (fixtures/attack-surface.pipe), with small
 * configured timeouts and connection cap so the slow ones stay fast. While an attack runs, a
 * second client sends `GET /health` every 50 ms: every probe must answer, and half of them within
 * 250 ms (the median; a busy test machine can delay any single one). The attack itself must get a
 * clear 4xx or a timeout (408), never a 200 after seconds.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, startServer, type RunningService } from '../e2e/service-process.js';
import { buildFixture, probeWhile, type ProbeReport } from './fuzz-support.js';
import { sendRaw, type RawResponse } from './raw-http.js';

/** The attacker's address: the service counts connections per client, and the probe is another client. */
const ATTACKER = '127.0.0.2';

const LIMITS = {
  PIPEC_HEADER_TIMEOUT_MS: '1000',
  PIPEC_BODY_TIMEOUT_MS: '1500',
  PIPEC_IDLE_TIMEOUT_MS: '1000',
  PIPEC_MAX_CONNECTIONS_PER_CLIENT: '40',
};

let outDir: string;
let server: RunningService;
let port: number;

beforeAll(async () => {
  outDir = await buildFixture('attacks');
  server = await startServer(outDir, LIMITS);
  port = Number(new URL(server.url).port);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** Runs the attack while probing; the service must stay responsive. */
async function underAttack<T>(attack: () => Promise<T>): Promise<{ result: T; probes: ProbeReport }> {
  const running = attack();
  const probes = await probeWhile(server.url, running);
  const result = await running;
  if (process.env['FUZZ_REPORT'] === '1') {
    console.info(
      `${expect.getState().currentTestName ?? ''}: ${probes.latenciesMs.length} probes, ` +
        `median ${probes.medianMs.toFixed(1)} ms, max ${probes.maxMs.toFixed(1)} ms`,
    );
  }
  expect(probes.failures).toEqual([]);
  expect(probes.latenciesMs.length).toBeGreaterThan(0);
  expect(probes.medianMs, `probe latencies ${probes.latenciesMs.map((l) => l.toFixed(0)).join(', ')} ms`).toBeLessThan(
    250,
  );
  return { result, probes };
}

/** A socket from the attacker's address; resolves with what it received once the server closed it. */
function attackerSocket(write: (socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER }, () => write(socket));
    socket.on('data', (c: Buffer) => {
      data += c.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(data));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server held the connection for 20 s; received: ${data.slice(0, 100)}`));
    }, 20_000).unref();
  });
}

/** Writes `text` one byte every `everyMs` until the server closes the socket. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++] ?? '');
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

const statusOf = (raw: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);

describe('slow clients (slowloris)', () => {
  it('request bodies that trickle in are cut off with 408 once the body timeout passes', async () => {
    const { result } = await underAttack(() =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          attackerSocket((s) => {
            // Within the route's 64 KB limit: the size is fine, the pace is the attack.
            s.write(
              'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n',
            );
            trickle(s, `{"a":"${'x'.repeat(59_990)}`, 100);
          }),
        ),
      ),
    );
    expect(result.map(statusOf)).toEqual(Array(20).fill(408));
  }, 30_000);

  it('headers that trickle in are cut off with 408 once the header timeout passes', async () => {
    const { result } = await underAttack(() =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          attackerSocket((s) => {
            trickle(s, `GET /items/1 HTTP/1.1\r\nHost: x\r\n${'X-Slow: y\r\n'.repeat(500)}\r\n`, 20);
          }),
        ),
      ),
    );
    expect(result.map(statusOf)).toEqual(Array(20).fill(408));
  }, 30_000);

  it('idle connections are closed after the idle timeout', async () => {
    const { result } = await underAttack(() =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          attackerSocket((s) => {
            s.write('GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n');
          }),
        ),
      ),
    );
    expect(result.map(statusOf)).toEqual(Array(20).fill(200));
  }, 30_000);
});

describe('connection flood', () => {
  it('connections over the per-client cap get 429 at once; the cap holds and another client is served', async () => {
    const { result } = await underAttack(async () => {
      const sockets: net.Socket[] = [];
      const answers: Array<Promise<string>> = [];
      for (let i = 0; i < 300; i++) {
        answers.push(
          new Promise((resolve) => {
            let data = '';
            const socket = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
            sockets.push(socket);
            socket.on('data', (c: Buffer) => {
              data += c.toString('latin1');
            });
            socket.on('error', () => undefined);
            socket.on('close', () => resolve(data));
          }),
        );
      }
      // The refused ones are answered and closed; the 40 within the cap stay until the header timeout.
      const all = await Promise.all(answers);
      for (const s of sockets) s.destroy();
      return all;
    });
    const refused = result.filter((r) => statusOf(r) === 429);
    const timedOut = result.filter((r) => statusOf(r) === 408 || r === '');
    expect(refused.length).toBeGreaterThanOrEqual(300 - 40);
    expect(refused.length + timedOut.length).toBe(300);
    expect(refused[0]).toContain('Too many connections from this address');
  }, 30_000);
});

describe('hostile bodies and paths', () => {
  const post = (target: string, body: Buffer | string, contentType = 'application/json'): Promise<RawResponse> =>
    sendRaw(
      port,
      { method: 'POST', target, headers: [['Content-Type', contentType]], body: Buffer.from(body) },
      10_000,
      ATTACKER,
    );
  const json = (res: RawResponse): Record<string, unknown> =>
    JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;

  it('an oversize body is refused with 413 before it is read, declared or streamed', async () => {
    await underAttack(async () => {
      const declared = await new Promise<string>((resolve) => {
        let data = '';
        const socket = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER }, () => {
          socket.write(
            'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
              'Content-Length: 104857600\r\n\r\n{"a":"',
          );
        });
        socket.on('data', (c: Buffer) => {
          data += c.toString('latin1');
          socket.destroy();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(data));
      });
      expect(statusOf(declared)).toBe(413);
      const streamed = await sendRaw(
        port,
        {
          method: 'POST',
          target: '/echo',
          headers: [['Content-Type', 'application/json']],
          body: Buffer.alloc(2 * 1024 * 1024, 0x61),
          chunked: true,
        },
        10_000,
        ATTACKER,
      );
      expect(streamed.status).toBe(413);
    });
  });

  it('100,000-deep JSON is refused with 400', async () => {
    const { result } = await underAttack(() => post('/deep', '['.repeat(100_000) + ']'.repeat(100_000)));
    expect(result.status).toBe(400);
    expect(String(json(result)['error'])).toContain('nesting deeper than');
  });

  it('malformed JSON and invalid UTF-8 are 400', async () => {
    for (const body of [
      Buffer.from('{"id": '),
      Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    ]) {
      const res = await post('/orders', body);
      expect(res.status, body.toString('latin1')).toBe(400);
      expect(json(res)['executionId']).toEqual(expect.any(String));
    }
  });

  it('prototype-polluting keys are data: nothing else sees them', async () => {
    for (const body of ['{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}']) {
      const res = await post('/echo', body);
      expect(res.status).toBe(200);
    }
    const form = await post('/echo', '__proto__[polluted]=yes&a=1', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(200);
    const after = await sendRaw(port, { method: 'GET', target: '/items/1?x=1', headers: [] }, 10_000, ATTACKER);
    expect(after.body.toString()).not.toContain('polluted');
  });

  it('path tricks reach no file and no other route', async () => {
    for (const target of [
      '/../../etc/passwd',
      '/items/..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/items/%00',
      '/items/%zz',
    ]) {
      const res = await sendRaw(port, { method: 'GET', target, headers: [] }, 10_000, ATTACKER);
      expect([200, 400, 404], target).toContain(res.status);
      expect(res.body.toString(), target).not.toMatch(/root:x:0:0/);
    }
  });

  it('multipart without a boundary is 400, not 500', async () => {
    const res = await post('/upload', 'abc', 'multipart/form-data');
    expect(res.status).toBe(400);
    expect(json(res)['error']).toContain('boundary');
  });

  it("/mcp refuses a browser origin that is not the service's own with 403", async () => {
    const res = await sendRaw(
      port,
      {
        method: 'POST',
        target: '/mcp',
        headers: [
          ['Content-Type', 'application/json'],
          ['Accept', 'application/json, text/event-stream'],
          ['Origin', 'http://rebound.example'],
        ],
        body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
      },
      10_000,
      ATTACKER,
    );
    expect(res.status).toBe(403);
  });

  it('logged no error while being attacked', () => {
    const errors = server
      .logs()
      .split('\n')
      .filter((line) => line.includes('"level":50') || line.includes('"level":60'));
    expect(errors.slice(0, 3)).toEqual([]);
  });
});

describe('starting next to another service', () => {
  it('a port in use is one clear log line and exit code 1; "service started" only when the port is bound', async () => {
    const started = new RegExp(`"port":${port}[^\\n]*"msg":"service started"`);
    await vi.waitFor(() => expect(server.logs()).toMatch(started), { timeout: 10_000 });
    const second = spawn(process.execPath, [path.join(outDir, 'server.js')], {
      env: { ...process.env, PORT: String(port), PIPEC_DATA_DIR: path.join(outDir, '.data-second') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    second.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    second.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
    expect(code).toBe(1);
    // Every line is a JSON log line; the failure is one of them, and the only one above info.
    const records = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const failures = records.filter((r) => r.level >= 40);
    expect(failures).toEqual([
      expect.objectContaining({
        level: 60,
        msg: `port ${port} is already in use (*:${port}); stop the other process or set PORT to a free port`,
      }),
    ]);
    expect(output).not.toContain('EADDRINUSE');
    expect(output).not.toContain('service started');
  }, 30_000);

  it('HOST binds one interface', async () => {
    const free = await freePort();
    const bound = spawn(process.execPath, [path.join(outDir, 'server.js')], {
      env: { ...process.env, PORT: String(free), HOST: '127.0.0.2', PIPEC_DATA_DIR: path.join(outDir, '.data-host') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const started = new Promise<void>((resolve, reject) => {
      bound.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('service started')) resolve();
      });
      bound.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
    try {
      await started;
      expect((await fetch(`http://127.0.0.2:${free}/health`)).status).toBe(200);
      await expect(fetch(`http://127.0.0.1:${free}/health`)).rejects.toThrow();
    } finally {
      bound.kill('SIGKILL');
    }
  }, 30_000);
});
