/**
 * Multipart bodies (formidable through koa-body), for the routes Mastodon clients send as
 * multipart/form-data: fields within the 1 MiB limit, and files only where the route takes them
 * (413 for a file part elsewhere). Every file formidable creates is tracked from its first byte:
 * whatever happens (refused, too large, aborted, the route failing or succeeding), its descriptor
 * is closed and its file removed once the request is over. Other content types go to the shared
 * parser.
 */
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Context, Middleware } from 'koa';
import { BODY_LIMIT_BYTES, parseBody, requireIdentityEncoding, type KoaBodyOptions } from '../../http/body.js';
import { HttpError } from '../../http/errors.js';
import { nestBracketed } from '../../http/nested-params.js';
import { lazy } from '../../lib/on-first-use.js';
import { isOutOfSpace } from '../../storage/out-of-space.js';

export interface MultipartLimits {
  /** Where formidable writes file parts (a folder the stale-upload sweep watches). */
  uploadDir: string;
  /** How many file parts the route takes (0: none). */
  files: number;
  fileBytes: number;
  /** All file parts together (default: `files` times `fileBytes`). */
  totalFileBytes?: number;
  fieldBytes?: number;
  /** HTTP methods whose body is read. */
  methods?: string[];
}

const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The file object formidable hands to `fileBegin`: its write stream is private, but it is what holds the descriptor. */
interface FormidableFile {
  filepath: string;
  _writeStream?: WriteStream | null;
}

/**
 * Parses a multipart body into ctx.request.body and ctx.request.files, then runs the rest of the
 * chain; the uploaded files never outlive the request (the services move away what they keep).
 * A refused body is 413 (too large, too many files) or 400 (malformed, cut off).
 */
export function multipartParser(limits: MultipartLimits): Middleware {
  // Loaded with the first upload (it brings formidable and zod), not at start-up.
  const koaBody = lazy(
    'the upload parser (koa-body)',
    async () => (await import('koa-body')).koaBody as (options: KoaBodyOptions) => Middleware,
  );
  return async (ctx, next) => {
    // formidable reads the bytes as sent.
    requireIdentityEncoding(ctx);
    const started: FormidableFile[] = [];
    // One parser per request: formidable's fileBegin does not say which request a file is for.
    const parse = (await koaBody())(
      options(limits, (_name, file) => {
        started.push(file as FormidableFile);
      }),
    );
    try {
      try {
        await parse(ctx, async () => undefined);
      } catch (error) {
        throw refused(ctx, error);
      }
      const request = ctx.request as { body?: Record<string, unknown> };
      if (request.body) request.body = await nestBracketed(request.body);
      await next();
    } finally {
      await Promise.all(started.map(discard));
    }
  };
}

function options(limits: MultipartLimits, onFileBegin: (name: string, file: unknown) => void): KoaBodyOptions {
  return {
    multipart: true,
    urlencoded: false,
    json: false,
    text: false,
    parsedMethods: limits.methods ?? METHODS,
    formidable: {
      uploadDir: limits.uploadDir,
      keepExtensions: false,
      maxFiles: limits.files,
      maxFileSize: Math.max(limits.fileBytes, 1),
      maxTotalFileSize: limits.totalFileBytes ?? Math.max(limits.fileBytes, 1) * Math.max(limits.files, 1),
      maxFieldsSize: limits.fieldBytes ?? BODY_LIMIT_BYTES,
      maxFields: 1000,
      allowEmptyFiles: false,
      onFileBegin,
      onPart: asRackDoes,
    },
  } as KoaBodyOptions;
}

interface FormPart {
  originalFilename?: string | null;
  mimetype?: string | null;
}

/**
 * A part with a filename is a file whatever its headers, as Rack takes it (formidable would read a
 * file part without a Content-Type as a text field); the media code detects the type from the bytes.
 */
function asRackDoes<P extends FormPart>(part: P, handle: (part: P) => void): void {
  if (part.originalFilename && !part.mimetype) part.mimetype = 'application/octet-stream';
  handle(part);
}

/**
 * The client's error for a body formidable gave up on. What it did not read is drained (the
 * server's request timeout bounds how long): formidable may leave the request paused mid-body, which
 * would hold the connection until the client gives up.
 */
function refused(ctx: Context, error: unknown): Error {
  ctx.req.resume();
  if (isOutOfSpace(error)) return error as Error; // the server's fault: 507, not the client's 4xx
  const message = String((error as Error)?.message ?? '');
  const code = (error as { httpCode?: number }).httpCode;
  const tooLarge = code === 413 || /max|exceed|too large/i.test(message);
  return new HttpError(tooLarge ? 413 : 400, tooLarge ? 'Payload too large' : 'Invalid multipart body');
}

/** Closes a file's descriptor (waiting for an open still under way) before removing it, or it could be created again. */
async function discard(file: FormidableFile): Promise<void> {
  const stream = file._writeStream;
  if (stream && !stream.closed) {
    const closed = once(stream, 'close').catch(() => undefined);
    stream.destroy();
    await closed;
  }
  await rm(file.filepath, { force: true });
}

/** JSON and form bodies to the shared parser; multipart ones with these limits (no files unless given). */
export function bodyParser(
  uploadDir: string,
  upload: { files: number; fileBytes: number } = { files: 0, fileBytes: 1 },
): Middleware {
  const plain = parseBody();
  const multipart = multipartParser({ uploadDir, ...upload });
  return async (ctx, next) => {
    if (ctx.is('multipart')) await multipart(ctx, next);
    else await plain(ctx, next);
  };
}

export interface Upload {
  filepath: string;
  size: number;
  mimetype?: string | null;
}

/** The uploaded file of a field (first one), if any. */
export function uploadOf(ctx: Context, field: string): Upload | undefined {
  const files = (ctx.request as { files?: Record<string, Upload | Upload[]> }).files;
  const file = files?.[field];
  return Array.isArray(file) ? file[0] : file;
}
