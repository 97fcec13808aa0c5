import { describe, expect, it } from 'vitest';
import type { HttpRequest } from './http.js';
import { nextRequest } from './redirects.js';

const none = { headers: [], query: [] };
const post: HttpRequest = {
  url: new URL('https://api.example.com/a?x=1'),
  method: 'POST',
  headers: [
    ['Content-Type', 'application/json'],
    ['Authorization', 'Bearer t'],
    ['x-api-key', 'k'],
    ['x-other', 'o'],
  ],
  body: '{"a":1}',
};

describe('nextRequest', () => {
  it('turns 301/302/303 after POST into a GET without body or body headers', () => {
    for (const status of [301, 302, 303]) {
      const next = nextRequest(post, status, '/b', none);
      expect(next?.method).toBe('GET');
      expect(next?.body).toBeUndefined();
      expect(next?.url.href).toBe('https://api.example.com/b');
      expect(next?.headers.map(([n]) => n)).toEqual(['Authorization', 'x-api-key', 'x-other']);
    }
  });

  it('keeps method and body for 307/308 and for 301 after PUT', () => {
    expect(nextRequest(post, 307, '/b', none)).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(nextRequest({ ...post, method: 'PUT' }, 301, '/b', none)).toMatchObject({ method: 'PUT', body: '{"a":1}' });
    expect(nextRequest({ ...post, method: 'HEAD', body: undefined }, 303, '/b', none)?.method).toBe('HEAD');
  });

  it('drops credentials, the api-key header and query on another origin (also http downgrade)', () => {
    const sensitive = { headers: ['X-Api-Key'], query: ['key'] };
    for (const location of ['https://evil.example.net/b?key=k&keep=1', 'http://api.example.com/b?key=k&keep=1']) {
      const next = nextRequest(post, 308, location, sensitive);
      expect(next?.headers.map(([n]) => n)).toEqual(['Content-Type', 'x-other']);
      expect(next?.url.search).toBe('?keep=1');
    }
    expect(nextRequest(post, 308, '/same?key=k', sensitive)?.url.search).toBe('?key=k');
  });

  it('ends on non-redirect statuses, missing or non-http locations', () => {
    expect(nextRequest(post, 200, '/b', none)).toBeUndefined();
    expect(nextRequest(post, 304, '/b', none)).toBeUndefined();
    expect(nextRequest(post, 302, null, none)).toBeUndefined();
    expect(nextRequest(post, 302, 'file:///etc/passwd', none)).toBeUndefined();
    expect(nextRequest(post, 302, 'http://[bad', none)).toBeUndefined();
  });
});
