/**
 * Request bodies: JSON, form and multipart, limited to 1 MiB for JSON and forms (413 beyond).
 * Multipart uploads (media) are parsed only by the routes that take files, with their own limits.
 */
import type { Middleware } from 'koa';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const PARSED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

export type KoaBodyOptions = Parameters<(typeof import('koa-body'))['koaBody']>[0];

/**
 * koa-body with these options, loaded with the first request that has a body rather than at
 * start-up (it brings formidable and zod): most requests are GETs, and many boxes never upload.
 */
export function lazyKoaBody(options: KoaBodyOptions): Middleware {
  let parser: Promise<Middleware> | null = null;
  return async (ctx, next) => {
    parser ??= import('koa-body').then(({ koaBody }) => koaBody(options));
    return (await parser)(ctx, next);
  };
}

export function parseBody(): Middleware {
  const parser = lazyKoaBody({
    jsonLimit: BODY_LIMIT_BYTES,
    formLimit: BODY_LIMIT_BYTES,
    textLimit: BODY_LIMIT_BYTES,
    multipart: false,
    jsonStrict: false,
    parsedMethods: PARSED_METHODS,
  } as KoaBodyOptions);
  return (ctx, next) => (PARSED_METHODS.includes(ctx.method) ? parser(ctx, next) : next());
}
