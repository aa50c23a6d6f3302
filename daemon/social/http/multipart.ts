/**
 * Multipart bodies for the routes Mastodon clients send as multipart/form-data (token, register,
 * update_credentials): fields only, same 1 MiB limit as the JSON and form parser; a file part
 * is refused with 413 unless the route takes files. Other content types go to the shared parser.
 */
import { koaBody } from 'koa-body';
import type { Middleware } from 'koa';
import { BODY_LIMIT_BYTES, parseBody } from '../../http/body.js';

export function bodyParser(options: { files?: number; fileBytes?: number } = {}): Middleware {
  const plain = parseBody();
  const multipart = koaBody({
    multipart: true,
    urlencoded: false,
    json: false,
    text: false,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    formidable: {
      maxFiles: options.files ?? 0,
      maxFileSize: options.fileBytes ?? 1,
      maxTotalFileSize: Math.max(options.fileBytes ?? 1, 1) * Math.max(options.files ?? 1, 1),
      maxFieldsSize: BODY_LIMIT_BYTES,
      maxFields: 1000,
      allowEmptyFiles: false,
    },
  } as Parameters<typeof koaBody>[0]);
  return async (ctx, next) => {
    if (!ctx.is('multipart')) return plain(ctx, next);
    try {
      await multipart(ctx, async () => undefined);
    } catch (error) {
      const message = String((error as Error).message ?? '');
      const status = /max|exceed|too large/i.test(message) ? 413 : 400;
      throw Object.assign(new Error(status === 413 ? 'Payload too large' : 'Invalid multipart body'), { status, expose: true });
    }
    return next();
  };
}
