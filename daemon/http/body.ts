/**
 * Request bodies: JSON, form and multipart, limited to 1 MiB for JSON and forms (413 beyond).
 * Multipart uploads (media) are parsed only by the routes that take files, with their own limits.
 */
import type { Middleware } from 'koa';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function parseBody(): Middleware {
  let parser: Promise<Middleware> | null = null;
  // The parser (and its dependencies) loads with the first request that has a body, not at
  // start-up: most requests are GETs, and a box that only serves them never pays for it.
  const load = () => import('koa-body').then(({ koaBody }) => koaBody({
    jsonLimit: BODY_LIMIT_BYTES,
    formLimit: BODY_LIMIT_BYTES,
    textLimit: BODY_LIMIT_BYTES,
    multipart: false,
    jsonStrict: false,
    parsedMethods: [...PARSED_METHODS],
  } as Parameters<typeof koaBody>[0]));
  return async (ctx, next) => {
    if (!PARSED_METHODS.has(ctx.method)) return next();
    parser ??= load();
    return (await parser)(ctx, next);
  };
}
