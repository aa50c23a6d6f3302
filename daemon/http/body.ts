/**
 * Request bodies: JSON, form and multipart, limited to 1 MiB for JSON and forms (413 beyond).
 * Multipart uploads (media) are parsed only by the routes that take files, with their own limits.
 */
import { koaBody } from 'koa-body';
import type { Middleware } from 'koa';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export function parseBody(): Middleware {
  return koaBody({
    jsonLimit: BODY_LIMIT_BYTES,
    formLimit: BODY_LIMIT_BYTES,
    textLimit: BODY_LIMIT_BYTES,
    multipart: false,
    jsonStrict: false,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  } as Parameters<typeof koaBody>[0]);
}
