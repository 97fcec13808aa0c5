/**
 * Account fields and globals may come from the environment (`env("NAME")` in .pipe). Generated
 * code writes them as `{ "$env": "NAME" }` (optionally with `"default"`); they are resolved once,
 * at start. A missing variable becomes null with a warning that names the variable, never a value.
 *
 * When NAME is unset but `NAME_FILE` names a file, the value is that file's content (the
 * convention of container secrets: `TOKEN_SIGNING_KEY_FILE=/run/secrets/signing-key.pem`), without
 * one final line break. The file must be a regular file of at most 64 KB. The same holds for the
 * secrets the runtime reads itself (SECRET_VARIABLES: backend URLs, NATS credentials, the admin
 * key) and for `env("NAME")` read at a step.
 */
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Json } from '../types.js';

function envReference(value: Json): { name: string; fallback: Json } | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  const name = value['$env'];
  if (typeof name !== 'string' || !keys.every((k) => k === '$env' || k === 'default')) return null;
  return { name, fallback: Object.hasOwn(value, 'default') ? (value['default'] ?? null) : null };
}

/** Larger than any key or secret; a bigger file is a mistake (a wrong path). */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** The content of the file `NAME_FILE` names; throws (naming the variable, never the content) when unusable. */
function readSecretFile(variable: string, file: string): string {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > MAX_SECRET_FILE_BYTES) throw new Error('larger than 64 KB');
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read the file it names (${err instanceof Error ? err.message : String(err)})`);
  }
  return text.replace(/\r?\n$/, '');
}

/**
 * The secrets the runtime itself reads from the environment (backend URLs may carry passwords).
 * Each may be given as `NAME_FILE` instead, like the `env()` values of a .pipe file.
 */
export const SECRET_VARIABLES: readonly string[] = [
  'PIPEC_STORE',
  'PIPEC_BROKER',
  'PIPEC_ADMIN_API_KEY',
  'PIPEC_NATS_TOKEN',
  'PIPEC_NATS_USER',
  'PIPEC_NATS_PASSWORD',
  'PIPEC_NATS_NKEY_SEED',
];

/** The value of NAME, else the content of the file NAME_FILE names, else undefined. */
export function envOrFile(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const found = Object.hasOwn(env, name) ? env[name] : undefined;
  if (found !== undefined) return found;
  const fileVariable = `${name}_FILE`;
  const file = Object.hasOwn(env, fileVariable) ? env[fileVariable] : undefined;
  return file !== undefined && file !== '' ? readSecretFile(fileVariable, file) : undefined;
}

/**
 * `env` with each of SECRET_VARIABLES that is unset but has a `NAME_FILE` filled from its file
 * (once, at start); `env` itself is left as it is. Throws, naming the variable, on an unreadable file.
 */
export function withSecretFiles(
  env: NodeJS.ProcessEnv,
  names: readonly string[] = SECRET_VARIABLES,
): NodeJS.ProcessEnv {
  let out: NodeJS.ProcessEnv | undefined;
  for (const name of names) {
    if (Object.hasOwn(env, name) || !Object.hasOwn(env, `${name}_FILE`)) continue;
    const value = envOrFile(env, name);
    if (value === undefined) continue;
    out ??= { ...env };
    out[name] = value;
  }
  return out ?? env;
}

export function resolveEnvValue(value: Json, env: NodeJS.ProcessEnv, onMissing: (name: string) => void): Json {
  const ref = envReference(value);
  if (ref) {
    const found = envOrFile(env, ref.name);
    if (found !== undefined) return found;
    if (ref.fallback === null) onMissing(ref.name);
    return ref.fallback;
  }
  return value;
}

/** Resolves `{ $env }` references among the values of one record (no deep walk: fields are flat). */
export function resolveEnvRecord(
  record: Readonly<Record<string, Json>>,
  env: NodeJS.ProcessEnv,
  where: string,
  logger: Logger,
): Record<string, Json> {
  const out: Record<string, Json> = Object.create(null) as Record<string, Json>;
  for (const [key, value] of Object.entries(record)) {
    out[key] = resolveEnvValue(value, env, (name) =>
      logger.warn({ variable: name, where: `${where}.${key}` }, 'environment variable is not set'),
    );
  }
  return Object.freeze(out);
}

export function resolveAccounts(
  accounts: Readonly<Record<string, Readonly<Record<string, Json>>>>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Readonly<Record<string, Readonly<Record<string, Json>>>> {
  const out: Record<string, Readonly<Record<string, Json>>> = Object.create(null) as Record<
    string,
    Readonly<Record<string, Json>>
  >;
  for (const [name, fields] of Object.entries(accounts))
    out[name] = resolveEnvRecord(fields, env, `account ${name}`, logger);
  return Object.freeze(out);
}
