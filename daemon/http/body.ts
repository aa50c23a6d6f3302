/**
 * Request bodies: JSON, form and multipart, limited to 1 MiB for JSON and forms (413 beyond).
 * Multipart uploads (media) are parsed only by the routes that take files, with their own limits.
 */
import type { Context, Middleware } from 'koa';
import { lazy } from '../lib/on-first-use.js';
import { HttpError } from './errors.js';
import { withLongIntegers } from './json-integers.js';
import { NESTING, nestBracketed } from './nested-params.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const PARSED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

export type KoaBodyOptions = Parameters<(typeof import('koa-body'))['koaBody']>[0];

/**
 * koa-body with these options, loaded with the first request that has a body rather than at
 * start-up (it brings formidable and zod): most requests are GETs, and many boxes never upload.
 * What it refuses is the client's error: a body that does not decode as its Content-Encoding
 * says is 400, an unknown Content-Encoding 415.
 */
export function lazyKoaBody(options: KoaBodyOptions): Middleware {
  const parser = lazy('the body parser (koa-body)', async () => (await import('koa-body')).koaBody(options));
  return async (ctx, next) => {
    const parse = await parser();
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      throw decodingError(ctx, error);
    }
    await next();
  };
}

/** Content encodings the body parser decodes (those of the `inflation` module under co-body). */
const DECODED = ['identity', 'gzip', 'x-gzip', 'deflate', 'br'];

function encodingOf(ctx: Context): string {
  return (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
}

function decodingError(ctx: Context, error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const status = (error as { status?: unknown }).status;
  const encoding = encodingOf(ctx);
  if (status === 415 || !DECODED.includes(encoding))
    return new HttpError(415, `Unsupported Content-Encoding: ${encoding.slice(0, 40)}`);
  // Errors of zlib and brotli carry no HTTP status: the bytes were not what the header said.
  if (status === undefined && encoding !== 'identity')
    return new HttpError(400, `The request body is not valid ${encoding}`);
  return error;
}

/** For the routes that read the raw body themselves (inbox, firmware): an encoded body is not taken. */
export function requireIdentityEncoding(ctx: Context): void {
  if (encodingOf(ctx) !== 'identity')
    throw new HttpError(415, `Unsupported Content-Encoding: ${encodingOf(ctx).slice(0, 40)}`);
}

export function parseBody(): Middleware {
  const parser = lazyKoaBody({
    jsonLimit: BODY_LIMIT_BYTES,
    formLimit: BODY_LIMIT_BYTES,
    textLimit: BODY_LIMIT_BYTES,
    multipart: false,
    jsonStrict: false,
    includeUnparsed: true,
    queryString: NESTING,
    parsedMethods: PARSED_METHODS,
  } as KoaBodyOptions);
  return async (ctx, next) => {
    if (!PARSED_METHODS.includes(ctx.method)) {
      await next();
      return;
    }
    await parser(ctx, async () => {
      const request = ctx.request as { body?: unknown; rawBody?: unknown };
      if (ctx.is('json') && typeof request.rawBody === 'string') {
        const exact = await withLongIntegers(request.rawBody);
        if (exact !== undefined) request.body = exact;
        if (isPlainObject(request.body)) request.body = await nestBracketed(request.body);
      }
      await next();
    });
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
