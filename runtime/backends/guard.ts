/**
 * Puts a backend behind its Dependency: while the backend is known to be away, every call fails at
 * once with 503 BACKEND_UNAVAILABLE (and a Retry-After hint) instead of waiting for a connection
 * timeout; a call that fails with a connection error reports the loss and fails the same way. Other
 * errors pass through unchanged. Only calls that return promises are wrapped.
 */
import type { Dependency } from './availability.js';

export function guarded<T extends object>(
  target: T,
  dependency: Dependency,
  isConnectionError: (err: unknown) => boolean,
  lost: (err: unknown) => void,
): T {
  const wrapped = {} as Record<string, unknown>;
  for (const name of methodNames(target)) {
    const method = (target as Record<string, unknown>)[name];
    if (typeof method !== 'function' || name === 'close') continue;
    wrapped[name] = async (...args: unknown[]): Promise<unknown> => {
      dependency.assertUp();
      try {
        return await (method as (...a: unknown[]) => unknown).apply(target, args);
      } catch (err) {
        if (!isConnectionError(err)) throw err;
        lost(err);
        throw dependency.unavailable(err);
      }
    };
  }
  return Object.assign(Object.create(target) as T, wrapped);
}

function methodNames(target: object): string[] {
  const names = new Set<string>(Object.keys(target));
  for (
    let proto = Object.getPrototypeOf(target) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  return [...names];
}
