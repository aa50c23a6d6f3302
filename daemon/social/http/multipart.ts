/**
 * Multipart bodies for the routes Mastodon clients send as multipart/form-data (token, register,
 * update_credentials): fields only, same 1 MiB limit as the JSON and form parser; a file part
 * is refused with 413 unless the route takes files. Other content types go to the shared parser.
 */
import { rm } from 'node:fs/promises';
import type { Context, Middleware } from 'koa';
import { BODY_LIMIT_BYTES, lazyKoaBody, parseBody, type KoaBodyOptions } from '../../http/body.js';

export function bodyParser(options: { files?: number; fileBytes?: number } = {}): Middleware {
  const plain = parseBody();
  const multipart = lazyKoaBody({
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
  } as KoaBodyOptions);
  return async (ctx, next) => {
    if (!ctx.is('multipart')) return plain(ctx, next);
    try {
      await multipart(ctx, async () => undefined);
    } catch (error) {
      await removeUploads(ctx);
      const message = String((error as Error).message ?? '');
      const status = /max|exceed|too large/i.test(message) ? 413 : 400;
      throw Object.assign(new Error(status === 413 ? 'Payload too large' : 'Invalid multipart body'), { status, expose: true });
    }
    try {
      return await next();
    } finally {
      await removeUploads(ctx);
    }
  };
}

export interface Upload { filepath: string; size: number }

/** The uploaded file of a field (first one), if any. */
export function uploadOf(ctx: Context, field: string): Upload | undefined {
  const files = (ctx.request as { files?: Record<string, Upload | Upload[]> }).files;
  const file = files?.[field];
  return Array.isArray(file) ? file[0] : file;
}

/** Temporary upload files never outlive the request (the service copies what it keeps). */
async function removeUploads(ctx: Context): Promise<void> {
  const files = (ctx.request as { files?: Record<string, Upload | Upload[]> }).files ?? {};
  for (const entry of Object.values(files)) {
    for (const file of Array.isArray(entry) ? entry : [entry]) await rm(file.filepath, { force: true });
  }
}
