/**
 * An upstream HTTP server for failure-policy tests that fails on a script: each path answers the
 * steps of its script in turn (the last step repeats), one step per request. A step is an answer
 * (status, headers, JSON body), an answer sent late (`delayMs`, for read timeouts and slow
 * services), an answer held until the test releases it, or a broken connection (`reset`: the socket is destroyed before any answer). Every
 * request is recorded (method, path, headers, body, and when it arrived on the test's clock).
 *
 * @example
 *   const upstream = await ScriptedUpstream.start();
 *   upstream.script('/orders', [{ status: 429, headers: { 'retry-after': '2' } }, { reset: true }, { status: 200, body: { ok: true } }]);
 *   // …call `${upstream.url}/orders` three times: 429, a reset, then 200.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptStep =
  | {
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: unknown;
      readonly delayMs?: number;
      /** Answer only once `release()` is called (a service that is busy for as long as the test wants). */
      readonly hold?: boolean;
    }
  | { readonly reset: true };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export class ScriptedUpstream {
  readonly requests: RecordedRequest[] = [];
  private readonly scripts = new Map<string, { steps: readonly ScriptStep[]; next: number }>();
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private held: (() => void)[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ScriptedUpstream> {
    let upstream: ScriptedUpstream | undefined;
    const server = http.createServer((req, res) => upstream?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    upstream = new ScriptedUpstream(server, `http://127.0.0.1:${port}`);
    server.on('connection', (socket) => {
      upstream?.sockets.add(socket);
      socket.on('close', () => upstream?.sockets.delete(socket));
    });
    return upstream;
  }

  /** Sets what `path` answers from now on (and forgets what it answered before). */
  script(path: string, steps: readonly ScriptStep[]): void {
    if (steps.length === 0) throw new Error('a script has at least one step');
    this.scripts.set(path, { steps, next: 0 });
  }

  /** Requests that reached `path`. */
  hits(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Answers every held request (and those that arrive held later are held again). */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://upstream').pathname;
      this.requests.push({
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const script = this.scripts.get(path);
      if (!script) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `no script for ${path}` }));
        return;
      }
      const step = script.steps[Math.min(script.next, script.steps.length - 1)] as ScriptStep;
      script.next += 1;
      if ('reset' in step) {
        req.socket.destroy();
        return;
      }
      const answer = (): void => {
        if (res.destroyed) return;
        const body = step.body === undefined ? '' : JSON.stringify(step.body);
        res
          .writeHead(step.status, { ...(body ? { 'content-type': 'application/json' } : {}), ...step.headers })
          .end(body);
      };
      if (step.hold) this.held.push(answer);
      else if (step.delayMs === undefined) answer();
      else {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          answer();
        }, step.delayMs);
        this.timers.add(timer);
      }
    });
  }
}
