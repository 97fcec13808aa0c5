/**
 * The `email` connector: sends one message over SMTP with nodemailer (schema.json).
 *
 * TLS: an `smtps://` account speaks TLS from the first byte; an `smtp://` one must upgrade with
 * STARTTLS (refused with 502 TLS when the server does not offer it) unless the account says
 * `tls: false`. Certificates are always verified (the account's `ca` adds a private authority).
 * Attachments are files of the execution's work folder (runtime/work-files.ts), streamed from disk
 * while the message is sent. One pooled transport per account, created on the first send and
 * closed with the service; nothing connects at start.
 *
 * In: params with every `{{ }}` evaluated, the connection account's fields in `accountFields`.
 * Out: { messageId, accepted, rejected, response }. Failures: PipeError with the kinds of
 * schema.json. Messages and logs never carry the password or the message's content.
 */
import type { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { PipeError } from '../../errors.js';
import type { ConnectorRun, Connections, ExecutionContext, Json } from '../../types.js';
import { resolveWorkFile } from '../../work-files.js';

export interface EmailParams {
  account?: string;
  accountFields?: Readonly<Record<string, Json>>;
  from?: string;
  to?: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  'reply-to'?: string;
  subject?: string;
  text?: string;
  html?: string;
  attachments?: Json;
  'connect-timeout'?: number;
  'send-timeout'?: number;
}

const DEFAULT_CONNECT_TIMEOUT = 10_000;
const DEFAULT_SEND_TIMEOUT = 120_000;
const MAX_ATTACHMENTS = 50;
const MAX_RECIPIENTS = 100;

/** What the account says of the server. */
export interface SmtpAccount {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** TLS from the first byte (smtps://). */
  readonly implicitTls: boolean;
  /** STARTTLS must succeed before anything else is sent (smtp:// unless `tls: false`). */
  readonly requireTls: boolean;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly ca: string | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
}

function invalid(message: string): PipeError {
  return new PipeError(`email: ${message}`, { code: 400, kind: 'INVALID_PARAMETER' });
}

function accountError(name: string, message: string): PipeError {
  return new PipeError(`email: account \`${name}\`: ${message}`, { code: 500, kind: 'ACCOUNT_CONFIGURATION' });
}

function text(fields: Readonly<Record<string, Json>>, key: string): string | undefined {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** `tls: false` (or "false", "off", "none") lets smtp:// send without STARTTLS. */
function tlsOff(fields: Readonly<Record<string, Json>>): boolean {
  const value = Object.hasOwn(fields, 'tls') ? fields['tls'] : undefined;
  return value === false || (typeof value === 'string' && ['false', 'off', 'none', 'no'].includes(value.toLowerCase()));
}

/** The account's fields as an SmtpAccount; 500 ACCOUNT_CONFIGURATION naming what is wrong. */
export function smtpAccountOf(
  name: string | undefined,
  fields: Readonly<Record<string, Json>> | undefined,
): SmtpAccount {
  if (name === undefined || fields === undefined) {
    throw accountError(name ?? '?', 'the step needs a connection account');
  }
  const url = text(fields, 'url');
  let scheme = 'smtp';
  let host = text(fields, 'host');
  let portText = text(fields, 'port');
  let username = text(fields, 'username');
  let password = text(fields, 'password');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw accountError(name, 'url is not a URL (smtp://host:587 or smtps://host:465)');
    }
    scheme = parsed.protocol.replace(/:$/, '');
    host ??= parsed.hostname.replace(/^\[|\]$/g, '') || undefined;
    portText ??= parsed.port || undefined;
    username ??= parsed.username ? decodeURIComponent(parsed.username) : undefined;
    password ??= parsed.password ? decodeURIComponent(parsed.password) : undefined;
  }
  if (scheme !== 'smtp' && scheme !== 'smtps') {
    throw accountError(name, `url must start with smtp:// or smtps://, not ${scheme}://`);
  }
  if (host === undefined) throw accountError(name, 'give url (smtp://host:587 or smtps://host:465) or host');
  const implicitTls = scheme === 'smtps';
  const port = Number(portText ?? (implicitTls ? 465 : 587));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw accountError(name, 'port must be a number from 1 to 65535');
  }
  return {
    name,
    host,
    port,
    implicitTls,
    requireTls: !implicitTls && !tlsOff(fields),
    username,
    password,
    ca: text(fields, 'ca'),
    cert: text(fields, 'cert'),
    key: text(fields, 'key'),
  };
}

type Transport = Transporter<SMTPPool.SentMessageInfo>;

async function transportOf(account: SmtpAccount, connectTimeout: number, sendTimeout: number): Promise<Transport> {
  // Loaded on first use: a service that never sends e-mail never loads nodemailer.
  const { default: nodemailer } = await import('nodemailer');
  const options: SMTPPool.Options = {
    pool: true,
    maxConnections: 5,
    host: account.host,
    port: account.port,
    secure: account.implicitTls,
    requireTLS: account.requireTls,
    connectionTimeout: connectTimeout,
    greetingTimeout: connectTimeout,
    socketTimeout: sendTimeout,
    disableFileAccess: false,
    disableUrlAccess: true,
    tls: {
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      ...(account.ca !== undefined ? { ca: account.ca } : {}),
      ...(account.cert !== undefined ? { cert: account.cert } : {}),
      ...(account.key !== undefined ? { key: account.key } : {}),
    },
    ...(account.username !== undefined ? { auth: { user: account.username, pass: account.password ?? '' } } : {}),
  };
  return nodemailer.createTransport(options);
}

const connectionKey = (account: SmtpAccount): string => `smtp:${account.name}`;

/** The pooled transport of the account (created on first use: it connects when it first sends). */
function transportFor(
  account: SmtpAccount,
  connections: Connections,
  connectTimeout: number,
  sendTimeout: number,
): Promise<Transport> {
  const key = connectionKey(account);
  return connections.get(key, key, async () => {
    const transport = await transportOf(account, connectTimeout, sendTimeout);
    return { client: transport, close: async () => transport.close() };
  });
}

/** `a@x, b@y` or [`a@x`, `b@y`] as a list; each must hold an @. */
export function addressesOf(value: unknown, param: string, required: boolean): string[] {
  const none = value === undefined || value === null;
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : none ? [] : undefined;
  if (items === undefined) throw invalid(`${param} must be an address, a comma-separated list or an array`);
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') throw invalid(`${param}: every address is a string`);
    const address = item.trim();
    if (address.length === 0) continue;
    // A display name may come before <address>; CR and LF never belong in a header.
    if (!/^[^\r\n]*@[^\r\n]*$/.test(address)) {
      throw invalid(`${param}: \`${address.slice(0, 80)}\` is not an e-mail address`);
    }
    out.push(address);
  }
  if (required && out.length === 0) throw invalid(`${param} names no recipient`);
  if (out.length > MAX_RECIPIENTS) throw invalid(`${param} names more than ${MAX_RECIPIENTS} recipients`);
  return out;
}

async function attachmentsOf(value: Json | undefined, ctx: ExecutionContext): Promise<Mail.Attachment[]> {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_ATTACHMENTS) throw invalid(`more than ${MAX_ATTACHMENTS} attachments`);
  const out: Mail.Attachment[] = [];
  for (const item of items) {
    const file = await resolveWorkFile(item, ctx.workDir, 'email: attachments');
    // nodemailer opens the path when it writes the message: streamed, never read whole.
    out.push({ filename: file.name, path: file.path, contentType: file.contentType });
  }
  return out;
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What a nodemailer error carries besides its message. */
interface NodemailerError extends Error {
  code?: string;
  originalCode?: string;
  response?: string;
  rejected?: unknown;
  reason?: string;
}

/** Words of Node's and OpenSSL's TLS failures. */
const TLS_PROBLEM =
  /certificate|self[- ]signed|SSL|TLS|wrong version number|unable to verify|hostname\/IP does not match/i;

/** A nodemailer failure as the step's PipeError. */
function sendError(err: unknown, account: SmtpAccount, ctx: ExecutionContext): PipeError {
  const target = `${account.host}:${account.port}`;
  if (err instanceof PipeError) return err;
  if (ctx.signal.aborted) {
    return new PipeError(`email: sending through ${target} was aborted (execution timeout or shutdown)`, {
      code: 504,
      kind: 'TIMEOUT',
    });
  }
  const e = (err ?? {}) as NodemailerError;
  const message = e.message ?? String(err);
  const answer = typeof e.response === 'string' ? e.response.slice(0, 300) : message.slice(0, 300);
  switch (e.code) {
    case 'EAUTH':
      return new PipeError(`email: ${target} refused the login of account \`${account.name}\``, {
        code: 502,
        kind: 'AUTHENTICATION_FAILED',
      });
    case 'ETLS':
    case 'EREQUIRETLS':
      return new PipeError(`email: TLS with ${target} failed: ${message}`, { code: 502, kind: 'TLS' });
    case 'ETIMEDOUT':
      return new PipeError(`email: ${target} did not answer in time`, { code: 504, kind: 'TIMEOUT' });
    case 'EENVELOPE': {
      const rejected = Array.isArray(e.rejected) ? e.rejected.filter((r): r is string => typeof r === 'string') : [];
      return new PipeError(`email: ${target} refused the recipients: ${answer}`, {
        code: 422,
        kind: 'RECIPIENTS_REJECTED',
        details: { rejected },
      });
    }
    case 'EMESSAGE':
      return new PipeError(`email: ${target} refused the message: ${answer}`, { code: 502, kind: 'MESSAGE_REJECTED' });
    case 'ESOCKET':
    case 'ECONNECTION':
    case 'EDNS':
      // A connection reset or refused before TLS was up is the network's, not a TLS failure.
      if (!NETWORK_CODES.has(e.originalCode ?? '') && (TLS_PROBLEM.test(message) || TLS_PROBLEM.test(e.reason ?? ''))) {
        return new PipeError(`email: TLS with ${target} failed: ${message}`, { code: 502, kind: 'TLS' });
      }
      return new PipeError(`email: cannot reach ${target}: ${message}`, { code: 503, kind: 'CONNECTION_REFUSED' });
    default:
      if (TLS_PROBLEM.test(message)) {
        return new PipeError(`email: TLS with ${target} failed: ${message}`, { code: 502, kind: 'TLS' });
      }
      return new PipeError(`email: sending through ${target} failed: ${answer}`, { code: 502, kind: 'SMTP_ERROR' });
  }
}

/** Kinds that say the server is away (for /ready); the others are answers of a server that is there. */
const UNREACHABLE = new Set(['CONNECTION_REFUSED', 'TIMEOUT']);

/** Waits for `work`, or fails 504 TIMEOUT as soon as the execution is aborted. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * @example
 *   await run({ account: 'mail', accountFields: { url: 'smtps://smtp.example.com', username: 'u', password: '…' },
 *               from: 'orders@example.com', to: 'ops@example.com', subject: 'New file', text: 'See attached.',
 *               attachments: [{ fileName: '…', originalFileName: 'orders.csv', contentType: 'text/csv', size: 12,
 *                               path: '…' }] },
 *             message, ctx)
 *   // → { messageId: '<…@example.com>', accepted: ['ops@example.com'], rejected: [], response: '250 OK: queued as 1' }
 */
export const run: ConnectorRun<EmailParams> = async (params, _message, ctx) => {
  const account = smtpAccountOf(params.account, params.accountFields);
  const from = addressesOf(params.from, 'from', true);
  if (from.length !== 1) throw invalid('from names one sender');
  const to = addressesOf(params.to, 'to', true);
  const cc = addressesOf(params.cc, 'cc', false);
  const bcc = addressesOf(params.bcc, 'bcc', false);
  const replyTo = addressesOf(params['reply-to'], 'reply-to', false);
  if (params.text === undefined && params.html === undefined) throw invalid('give text or html (or both)');
  if (typeof params.subject === 'string' && /[\r\n]/.test(params.subject)) {
    throw invalid('the subject holds a line break');
  }
  const attachments = await attachmentsOf(params.attachments, ctx);
  const mail: Mail.Options = {
    from: from[0],
    to,
    ...(cc.length > 0 ? { cc } : {}),
    ...(bcc.length > 0 ? { bcc } : {}),
    ...(replyTo.length > 0 ? { replyTo } : {}),
    subject: params.subject ?? '',
    ...(params.text !== undefined ? { text: params.text } : {}),
    ...(params.html !== undefined ? { html: params.html } : {}),
    attachments,
  };
  const connections = ctx.services.connections;
  const dependency = connectionKey(account);
  try {
    const connectTimeout = params['connect-timeout'] ?? DEFAULT_CONNECT_TIMEOUT;
    const sendTimeout = params['send-timeout'] ?? DEFAULT_SEND_TIMEOUT;
    const transport = await transportFor(account, connections, connectTimeout, sendTimeout);
    // Through the account's circuit breaker: a server that keeps refusing or timing out is not
    // called while its circuit is open (503 CIRCUIT_OPEN); its answers (a refused recipient) do not count.
    const info = await connections.guard(dependency, () => untilAborted(transport.sendMail(mail), ctx.signal), {
      failed: (err) => UNREACHABLE.has(sendError(err, account, ctx).kind),
    });
    connections.report(dependency, true);
    const accepted = (info.accepted ?? []).map(String);
    ctx.log.debug({ target: `${account.host}:${account.port}`, recipients: accepted.length }, 'email: sent');
    const rejected = (info.rejected ?? []).map(String);
    return { messageId: info.messageId, accepted, rejected, response: info.response ?? '' };
  } catch (err) {
    const failure = sendError(err, account, ctx);
    if (UNREACHABLE.has(failure.kind)) connections.report(dependency, false, failure);
    throw failure;
  }
};
