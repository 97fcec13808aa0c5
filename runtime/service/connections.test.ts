import { describe, expect, it } from 'vitest';
import { ConnectionRegistry } from './connections.js';
import { createLogger } from './logging.js';
import { LogCapture } from './test-support/test-service.js';

function registry(): { connections: ConnectionRegistry; logs: LogCapture } {
  const logs = new LogCapture();
  return {
    connections: new ConnectionRegistry(createLogger({ level: 'info', service: 'test', destination: logs })),
    logs,
  };
}

describe('ConnectionRegistry', () => {
  it('opens a client once, on first use, and shares it between concurrent uses', async () => {
    const { connections } = registry();
    let opened = 0;
    const open = async () => ({ client: { n: ++opened }, close: async () => undefined });
    const [a, b] = await Promise.all([
      connections.get('pg:a', 'postgres a', open),
      connections.get('pg:a', 'postgres a', open),
    ]);
    expect(a).toBe(b);
    expect(opened).toBe(1);
    expect(await connections.get('pg:a', 'postgres a', open)).toBe(a);
  });

  it('does not keep a failed open: the dependency is not ready until a later use succeeds', async () => {
    const { connections, logs } = registry();
    let up = false;
    const open = async () => {
      if (!up) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return { client: 'client', close: async () => undefined };
    };
    await expect(connections.get('pg:a', 'postgres a', open)).rejects.toThrow('ECONNREFUSED');
    await expect(connections.get('pg:a', 'postgres a', open)).rejects.toThrow('ECONNREFUSED');
    await Promise.resolve();
    expect(connections.notReady()).toEqual(['postgres a']);
    up = true;
    expect(await connections.get('pg:a', 'postgres a', open)).toBe('client');
    await Promise.resolve();
    expect(connections.notReady()).toEqual([]);
    // Said once that it went away (two failed uses) and once that it came back.
    expect(logs.records.filter((l) => l['msg'] === 'dependency unavailable')).toHaveLength(1);
    expect(logs.records.filter((l) => l['msg'] === 'dependency available again')).toHaveLength(1);
  });

  it('closes every client when the service stops and refuses uses afterwards', async () => {
    const { connections } = registry();
    const closed: string[] = [];
    for (const key of ['a', 'b']) {
      await connections.get(key, key, async () => ({ client: key, close: async () => void closed.push(key) }));
    }
    await connections.closeAll();
    expect(closed.sort()).toEqual(['a', 'b']);
    await expect(
      connections.get('a', 'a', async () => ({ client: 'x', close: async () => undefined })),
    ).rejects.toThrow('stopping');
  });

  it('drops a client so that the next use opens a new one', async () => {
    const { connections } = registry();
    let opened = 0;
    let closed = 0;
    const open = async () => ({ client: ++opened, close: async () => void closed++ });
    expect(await connections.get('k', 'k', open)).toBe(1);
    await connections.drop('k');
    expect(closed).toBe(1);
    expect(await connections.get('k', 'k', open)).toBe(2);
  });
});
