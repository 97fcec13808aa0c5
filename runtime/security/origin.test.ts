import { describe, expect, it } from 'vitest';
import { normalizeOrigin, originAllowed, originPolicyFromEnv } from './origin.js';

describe('Origin allow-list (DNS rebinding)', () => {
  const byDefault = originPolicyFromEnv({});

  it('lets requests without Origin through: programs, not browsers', () => {
    expect(originAllowed(null, byDefault, 8080)).toBe(true);
  });

  it("allows by default the service's own loopback origins only", () => {
    for (const own of ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://[::1]:8080'])
      expect(originAllowed(own, byDefault, 8080), own).toBe(true);
    for (const other of [
      'http://evil.example',
      'http://evil.example:8080',
      'http://localhost:3000',
      'https://localhost:8080',
      'null',
      'file://',
      'http://evil@127.0.0.1:8080',
      'http://127.0.0.1:8080/path',
      'http://127.0.0.1.evil.example:8080',
    ])
      expect(originAllowed(other, byDefault, 8080), other).toBe(false);
    // Without the socket's port (in-process requests), no origin is the service's own.
    expect(originAllowed('http://localhost:8080', byDefault, undefined)).toBe(false);
  });

  it('replaces the list with PIPEC_MCP_ALLOWED_ORIGINS, or turns the check off with *', () => {
    const listed = originPolicyFromEnv({
      PIPEC_MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173/',
    });
    expect(originAllowed('https://app.example.com', listed, 8080)).toBe(true);
    expect(originAllowed('http://localhost:5173', listed, 8080)).toBe(true);
    expect(originAllowed('http://localhost:8080', listed, 8080)).toBe(false);
    expect(originAllowed('https://evil.example', listed, 8080)).toBe(false);
    expect(originAllowed('https://evil.example', originPolicyFromEnv({ PIPEC_MCP_ALLOWED_ORIGINS: '*' }), 8080)).toBe(
      true,
    );
  });

  it('normalises origins as browsers send them', () => {
    expect(normalizeOrigin('HTTPS://App.Example.com:443')).toBe('https://app.example.com');
    expect(normalizeOrigin('null')).toBeNull();
    expect(normalizeOrigin('ftp://x')).toBeNull();
  });
});
