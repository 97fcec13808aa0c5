/**
 * Origin checks against DNS rebinding (MCP specification, Streamable HTTP transport: servers must
 * validate `Origin` and answer 403 when it is present and not allowed). A page on any site can make
 * a visitor's browser call a service on localhost once its own host name resolves there; the
 * browser then sends that site's `Origin` (and a `Host` the attacker chose, so `Host` proves
 * nothing). Requests without `Origin` come from programs, not browsers, and pass.
 *
 * Allowed by default: the service's own loopback origins (`http://localhost:PORT`,
 * `http://127.0.0.1:PORT`, `http://[::1]:PORT`, PORT being the port the request arrived on) and no
 * other browser origin. `PIPEC_MCP_ALLOWED_ORIGINS` replaces the list: origins separated by commas
 * (`https://app.example.com, http://localhost:5173`), or `*` for any (not recommended).
 */

export interface OriginPolicy {
  /** Origins allowed besides the loopback ones; `any` turns the check off. */
  readonly allowed: ReadonlySet<string> | 'any';
  /** Whether the service's own loopback origins are allowed (true unless the list was replaced). */
  readonly ownLoopback: boolean;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The policy from the environment (PIPEC_MCP_ALLOWED_ORIGINS); unset: own loopback origins only. */
export function originPolicyFromEnv(env: NodeJS.ProcessEnv): OriginPolicy {
  const raw = env['PIPEC_MCP_ALLOWED_ORIGINS'];
  if (raw === undefined || raw.trim() === '') return { allowed: new Set(), ownLoopback: true };
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.includes('*')) return { allowed: 'any', ownLoopback: true };
  return { allowed: new Set(entries.map(normalizeOrigin).filter((o): o is string => o !== null)), ownLoopback: false };
}

/**
 * `scheme://host[:port]` in the form browsers send (lower case, default port left out); null for
 * anything else, including the opaque origin `null`.
 */
export function normalizeOrigin(origin: string): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null') return null;
  return url.origin;
}

/** True when a request with this `Origin` header (null: none) may reach the endpoint. */
export function originAllowed(origin: string | null, policy: OriginPolicy, localPort: number | undefined): boolean {
  if (origin === null) return true;
  if (policy.allowed === 'any') return true;
  const normalized = normalizeOrigin(origin);
  if (normalized === null || normalized !== origin.trim().toLowerCase().replace(/\/$/, '')) return false;
  if (policy.allowed.has(normalized)) return true;
  if (!policy.ownLoopback || localPort === undefined) return false;
  return LOOPBACK_HOSTS.some((host) => normalized === `http://${host}:${localPort}`);
}
