import type { IncomingMessage } from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { RouteTable, type DirectHandler } from './trigger-host.js';

/** What @hono/node-server hands a fetch as its env: the Node request (only what serveDirect reads). */
function nodeEnv(method: string, url: string): { incoming: IncomingMessage } {
  const incoming = {
    method,
    url,
    rawHeaders: [],
    on: () => incoming,
    readableDidRead: false,
    readableEnded: false,
    destroyed: false,
    httpVersionMajor: 1,
  };
  return { incoming: incoming as unknown as IncomingMessage };
}

const request = (method: string, url: string): Request => new Request(`http://localhost${url}`, { method });

function table(onError = (err: Error) => new Response(`error: ${err.message}`, { status: 500 })) {
  const app = new Hono();
  return { app, routes: new RouteTable(app, onError) };
}

const answer =
  (text: string): DirectHandler =>
  () =>
    new Response(text);

describe('RouteTable.serveDirect', () => {
  it('answers a literal path and method from the Node request, the query aside', async () => {
    const { routes } = table();
    routes.route('p', ['POST'], '/orders', () => new Response('hono'), answer('direct'));
    const served = await routes.serveDirect(request('POST', '/orders?x=1'), nodeEnv('POST', '/orders?x=1'));
    expect(await served?.text()).toBe('direct');
  });

  it('leaves to Hono other paths, other methods, requests without a Node request, and routes without a direct handler', () => {
    const { routes } = table();
    routes.route('p', ['POST'], '/orders', () => new Response('hono'), answer('direct'));
    routes.route('q', ['POST'], '/plain', () => new Response('hono'));
    expect(routes.serveDirect(request('POST', '/orders/'), nodeEnv('POST', '/orders/'))).toBeUndefined();
    expect(routes.serveDirect(request('POST', '/Orders'), nodeEnv('POST', '/Orders'))).toBeUndefined();
    expect(routes.serveDirect(request('GET', '/orders'), nodeEnv('GET', '/orders'))).toBeUndefined();
    expect(routes.serveDirect(request('POST', '/orders'), undefined)).toBeUndefined();
    expect(routes.serveDirect(request('POST', '/plain'), nodeEnv('POST', '/plain'))).toBeUndefined();
  });

  it('never takes paths with parameters, wildcards or escapes', () => {
    const { routes } = table();
    for (const path of ['/items/:id', '/files/*', '/a%20b', '/a/../b']) {
      routes.route(path, ['POST'], path, () => new Response('hono'), answer('direct'));
      expect(routes.serveDirect(request('POST', path), nodeEnv('POST', path))).toBeUndefined();
    }
  });

  it('leaves the request to Hono where another route matches it too (Hono would run the first registered)', async () => {
    const { app, routes } = table();
    routes.route('param', ['POST'], '/orders/:id', () => new Response('param'));
    routes.route('literal', ['POST'], '/orders/new', () => new Response('literal'), answer('direct'));
    expect(routes.serveDirect(request('POST', '/orders/new'), nodeEnv('POST', '/orders/new'))).toBeUndefined();
    expect(await (await app.request('/orders/new', { method: 'POST' })).text()).toBe('param');
  });

  it('answers a throw as the onError handler does, and hands the handler onError for its own failures', async () => {
    const { routes } = table();
    routes.route(
      'sync',
      ['POST'],
      '/sync',
      () => new Response('hono'),
      () => {
        throw new Error('boom');
      },
    );
    routes.route(
      'async',
      ['POST'],
      '/async',
      () => new Response('hono'),
      (raw, _incoming, onError) => Promise.reject(new Error('later')).catch((err: Error) => onError(err, raw)),
    );
    const sync = await routes.serveDirect(request('POST', '/sync'), nodeEnv('POST', '/sync'));
    expect([sync?.status, await sync?.text()]).toEqual([500, 'error: boom']);
    const rejected = await routes.serveDirect(request('POST', '/async'), nodeEnv('POST', '/async'));
    expect([rejected?.status, await rejected?.text()]).toEqual([500, 'error: later']);
  });
});
