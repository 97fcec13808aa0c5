/**
 * The HTTP File trigger: uploads streamed to the execution's work folder, never buffered whole.
 * `multipart/form-data` parts become files (form fields become `body`); any other content type is
 * a raw upload stored as one file with param "body". One request carries at most `maxFileSize`
 * bytes (checked on Content-Length and on the streamed bytes) → 413 otherwise. Stored names are
 * generated; the client's file name is only data. Files go away with the work folder.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline as pipeStreams } from 'node:stream/promises';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context } from 'hono';
import { PipeError } from '../../errors.js';
import type { Json, JsonObject, PipelineModule, TriggerSpec } from '../../types.js';
import {
  addValue,
  ALL_ENVELOPE_FIELDS,
  buildEnvelope,
  checkDeclaredLength,
  envelopeFields,
  parseMediaType,
  tooLargeError,
  type EnvelopeFields,
} from '../../service/envelope.js';
import type { ExecutionScope } from '../../service/execution.js';
import { sharedLimits, testEnvelope, type HttpTriggerDeps, type RouteRegistrar } from '../http/http.js';
import { outcomeResponder } from '../../service/http-response.js';
import { createTriggerGuard } from '../../service/trigger-guard.js';
import type { TriggerRuntime } from '../../service/trigger-host.js';

export interface HttpFileTriggerSpec extends TriggerSpec {
  readonly kind: 'http-file';
  readonly methods: readonly string[];
  readonly path: string;
  /** Upload limit in bytes (default 100 MB). */
  readonly maxFileSize: number;
  readonly auth?: JsonObject;
  readonly rateLimit?: JsonObject;
  /** The envelope fields the pipeline reads, besides `body` and `files`; absent: all. */
  readonly envelope?: readonly string[];
}

export const trigger: TriggerRuntime<HttpFileTriggerSpec> = {
  attach(pipelines, host) {
    for (const p of pipelines) registerHttpFileTrigger((...args) => host.route(...args), p, p.trigger, host);
    return {};
  },
  // A test gives the form fields as `body` and no files unless it names some.
  testMessage: (spec, given) => testEnvelope(spec, given, { files: [] }),
};

export const DEFAULT_MAX_FILE_SIZE = 100 * 1024 * 1024;
const MAX_FILES = 20;
const MAX_FIELDS = 100;
const MAX_FIELD_SIZE = 64 * 1024;
/** Room for part headers and form fields on top of the file bytes. */
const MULTIPART_OVERHEAD = MAX_FIELDS * 1024 + MAX_FILES * 1024;
const MAX_NAME_LENGTH = 255;

export interface UploadedFile {
  readonly fileName: string;
  readonly originalFileName: string | null;
  readonly param: string;
  readonly contentType: string;
  readonly size: number;
  readonly path: string;
}

interface Upload {
  readonly files: UploadedFile[];
  readonly fields: JsonObject | null;
}

function badRequest(message: string): PipeError {
  return new PipeError(message, { code: 400, kind: 'BAD_REQUEST' });
}

const EXTENSION_BY_TYPE: Readonly<Record<string, string>> = {
  'application/pdf': '.pdf',
  'application/json': '.json',
  'application/xml': '.xml',
  'text/xml': '.xml',
  'text/csv': '.csv',
  'text/plain': '.txt',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'application/zip': '.zip',
};

/** A generated, path-safe name that keeps a plain extension of the client's name (or the type's). */
export function safeFileName(originalName: string | null, contentType: string): string {
  const ext =
    /(\.[A-Za-z0-9]{1,16})$/.exec(originalName ?? '')?.[1] ?? EXTENSION_BY_TYPE[parseMediaType(contentType).type] ?? '';
  return `${randomUUID()}${ext}`;
}

function cleanOriginalName(name: string | undefined | null): string | null {
  if (!name) return null;
  return name.replace(/[\0\r\n]/g, '').slice(0, MAX_NAME_LENGTH);
}

/** The file name from a `Content-Disposition` header of a raw upload, if any. */
export function dispositionFileName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star?.[1]) {
    try {
      return cleanOriginalName(decodeURIComponent(star[1].trim()));
    } catch {
      return null;
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/.exec(header);
  return cleanOriginalName(plain?.[1] ?? plain?.[2]?.trim());
}

/** Passes bytes through and fails once more than `limit` went by. */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) done(tooLargeError(this.limit));
    else done(null, chunk);
  }
}

function requestStream(request: Request): Readable {
  if (!request.body) return Readable.from([]);
  return Readable.fromWeb(request.body as unknown as NodeWebReadableStream<Uint8Array>);
}

/** Errors of the request stream itself: the client stopped sending or broke the connection. */
const CLIENT_STREAM_ERRORS = new Set([
  'ERR_STREAM_PREMATURE_CLOSE',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ABORT_ERR',
]);

/**
 * Maps stream failures: size limits keep their 413; a request that broke off is the client's
 * (400); a file that cannot be written (disk full, no permission) is ours to report as 503, with
 * the cause (which names paths) kept out of the reply.
 */
function asUploadError(err: unknown): PipeError {
  if (err instanceof PipeError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  // File-system errors carry an errno code (ENOSPC, EACCES, EMFILE…); stream errors do not, or a client one.
  const fileSystem = code !== undefined && /^E[A-Z]+$/.test(code) && !CLIENT_STREAM_ERRORS.has(code);
  if (!fileSystem) return badRequest('Upload interrupted');
  return new PipeError('The upload could not be stored', { code: 503, kind: 'UPLOAD_STORAGE', cause: err });
}

async function receiveRaw(request: Request, dir: () => string, limit: number): Promise<Upload> {
  const contentType = request.headers.get('content-type') ?? 'application/octet-stream';
  const originalFileName = dispositionFileName(request.headers.get('content-disposition'));
  const fileName = safeFileName(originalFileName, contentType);
  const path = join(dir(), fileName);
  const counter = new ByteLimit(limit);
  let size = 0;
  counter.on('data', (chunk: Buffer) => {
    size += chunk.length;
  });
  try {
    await pipeStreams(requestStream(request), counter, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
  } catch (err) {
    throw asUploadError(err);
  }
  return { files: [{ fileName, originalFileName, param: 'body', contentType, size, path }], fields: null };
}

function receiveMultipart(request: Request, dir: () => string, limit: number): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    const files: UploadedFile[] = [];
    const fields: JsonObject = {};
    let fieldCount = 0;
    const writes: Array<Promise<void>> = [];
    let failure: PipeError | null = null;
    const fail = (err: PipeError): void => {
      if (failure) return;
      failure = err;
      source.destroy();
    };

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': request.headers.get('content-type') ?? '' },
        limits: {
          fileSize: limit,
          files: MAX_FILES,
          fields: MAX_FIELDS,
          fieldSize: MAX_FIELD_SIZE,
          parts: MAX_FILES + MAX_FIELDS,
        },
        defParamCharset: 'utf8',
      });
    } catch {
      // busboy refuses a multipart Content-Type without a boundary (or with a malformed one) here.
      reject(badRequest('Malformed multipart body: the Content-Type has no valid boundary'));
      return;
    }
    parser.on('file', (param, stream, info) => {
      if (failure) {
        stream.resume();
        return;
      }
      const contentType = info.mimeType || 'application/octet-stream';
      const originalFileName = cleanOriginalName(info.filename);
      const fileName = safeFileName(originalFileName, contentType);
      const path = join(dir(), fileName);
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      stream.on('limit', () => fail(tooLargeError(limit)));
      const index = files.length;
      files.push({ fileName, originalFileName, param, contentType, size: 0, path });
      writes.push(
        pipeStreams(stream, createWriteStream(path, { flags: 'wx', mode: 0o600 })).then(
          () => {
            files[index] = { fileName, originalFileName, param, contentType, size, path };
          },
          (err: unknown) => fail(asUploadError(err)),
        ),
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) return fail(tooLargeError(limit));
      fieldCount++;
      addValue(fields, name, value);
    });
    const tooMany = (): void =>
      fail(new PipeError('Too many parts in the upload', { code: 413, kind: 'PAYLOAD_TOO_LARGE' }));
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);

    const source = requestStream(request);
    pipeStreams(source, new ByteLimit(limit + MULTIPART_OVERHEAD), parser)
      .catch((err: unknown) =>
        fail(err instanceof PipeError ? err : badRequest(`Malformed multipart body: ${multipartProblem(err)}`)),
      )
      .then(() => Promise.all(writes))
      .then(() => {
        if (failure) reject(failure);
        else resolve({ files, fields: fieldCount > 0 ? fields : null });
      }, reject);
  });
}

/** busboy's own messages describe the body ("Unexpected end of form"); anything else stays generic. */
function multipartProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  const described = /^(Unexpected end of (form|file)|Malformed part header|Part terminated early)/i.test(message);
  return described ? message.toLowerCase() : 'cannot be parsed';
}

/** Receives the upload into the execution's work folder and builds the message. */
export async function receiveUpload(
  request: Request,
  pathParams: Readonly<Record<string, string>>,
  scope: ExecutionScope,
  limit: number,
  fields: EnvelopeFields = ALL_ENVELOPE_FIELDS,
): Promise<Json> {
  const { type } = parseMediaType(request.headers.get('content-type'));
  const dir = (): string => scope.workDir;
  const multipart = type === 'multipart/form-data';
  checkDeclaredLength(request.headers, multipart ? limit + MULTIPART_OVERHEAD : limit);
  const upload = multipart ? await receiveMultipart(request, dir, limit) : await receiveRaw(request, dir, limit);
  const envelope = buildEnvelope({ request, pathParams, body: upload.fields }, fields);
  return { ...envelope, files: upload.files.map((f): JsonObject => ({ ...f })) };
}

export function registerHttpFileTrigger(
  route: RouteRegistrar,
  pipeline: PipelineModule,
  spec: HttpFileTriggerSpec,
  deps: HttpTriggerDeps,
): void {
  const limit = spec.maxFileSize > 0 ? spec.maxFileSize : DEFAULT_MAX_FILE_SIZE;
  const guard = createTriggerGuard(spec, deps.accounts, deps.clock, deps.refuse, sharedLimits(deps, pipeline));
  const outcomeResponse = outcomeResponder(deps.errorDetail);
  const fields = envelopeFields(spec.envelope);
  route(pipeline.name, spec.methods, spec.path, async (c: Context) => {
    if (guard) {
      const checked = await guard(c);
      if (!checked.ok) {
        deps.metrics.requestsRejected.inc({ pipeline: pipeline.name, reason: String(checked.response.status) });
        return checked.response;
      }
    }
    const request = c.req.raw;
    const pathParams = c.req.param() as Record<string, string>;
    const outcome = await deps.engine.execute({
      pipeline: pipeline.name,
      prepare: (scope) => receiveUpload(request, pathParams, scope, limit, fields),
      trigger: 'http-file',
      traceHeaders: request.headers,
    });
    return outcomeResponse(outcome);
  });
}
