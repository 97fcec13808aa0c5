/**
 * Shapes the platform builds, as reads of them are checked: the principal per auth type (exact),
 * the error a `catch` / `on-error` sees and the failure an `on-fail` sees (open, with the fields
 * the platform declares, so a near miss of one is PIPE4030 — unless the guarded steps may fail
 * with fields named in the pipeline).
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../compile.js';
import { loadRegistry } from '../connectors/load-registry.js';

const registry = await loadRegistry({ compileParts: true });

function codes(text: string): string[] {
  const result = compile({
    files: [{ path: '/p/p.pipe', text }],
    registry,
    host: { readFile: () => undefined },
    emit: false,
  });
  return result.diagnostics.map((d) => d.code);
}

const ACCOUNTS =
  'account keys: api-key { keys: ["k"] }\naccount users: basic { username: "u", password: "p" }\n' +
  'account verifier: public-key { key: env("K", "/.well-known/jwks.json"), alg: "ES256" }\n';

function principal(auth: string, read: string): string[] {
  return codes(
    `${ACCOUNTS}pipeline p {\n  trigger http { method: GET, path: "/p"${auth} }\n  respond 200 { who: "{{ message.principal.${read} }}" }\n}\n`,
  );
}

describe('message.principal', () => {
  it('is exact for the auth type', () => {
    expect(principal(', auth: { type: api-key, account: keys }', 'account')).toEqual([]);
    expect(principal(', auth: { type: api-key, account: keys }', 'keyIndex')).toEqual([]);
    expect(principal(', auth: { type: api-key, account: keys }', 'subject')).toEqual(['PIPE4006']);
    expect(principal(', auth: { type: basic, account: users }', 'username')).toEqual([]);
    expect(principal(', auth: { type: basic, account: users }', 'user')).toEqual(['PIPE4006']);
    expect(principal(', auth: { type: bearer, account: verifier }', 'claims.tenant')).toEqual([]);
    expect(principal(', auth: { type: bearer, account: verifier }', 'sub')).toEqual(['PIPE4006']);
  });

  it('stays open without auth', () => {
    expect(principal('', 'anything')).toEqual([]);
  });
});

function caught(guarded: string, read: string): string[] {
  return codes(
    `pipeline p {\n  trigger http { method: POST, path: "/p" }\n  try {\n${guarded}\n  } catch {\n    log { message: "{{ message.${read} }}" }\n  }\n  respond 200 {}\n}\n` +
      'pipeline q {\n  trigger http { method: POST, path: "/q" }\n  respond 200 {}\n}\n',
  );
}

describe('the error a catch sees', () => {
  const rest = '    rest r { url: "https://example.com", method: GET }';
  it('reports a near miss of a declared field, and reads the platform details as declared', () => {
    expect(caught(rest, 'errorMessage')).toEqual(['PIPE4030']);
    expect(caught(rest, 'mesage')).toEqual(['PIPE4030']);
    expect(caught(rest, 'status')).toEqual([]);
    expect(caught(rest, 'childExecutionId')).toEqual([]);
    expect(caught(rest, 'anythingElse')).toEqual([]);
  });

  it('stays quiet when the guarded steps may fail with fields named in the pipeline', () => {
    expect(caught('    fail 422 { errorMessage: "x" }', 'errorMessage')).toEqual([]);
    expect(caught('    execute x { pipeline: q, payload: {} }', 'errorMessage')).toEqual([]);
    expect(caught('    fail 422 "plain text"', 'errorMessage')).toEqual(['PIPE4030']);
  });
});
