/**
 * Bodies of the media routes only: multipart (formidable through koa-body, files written straight
 * to the media folder's incoming directory, at most the video limit), or JSON/form with `file` as
 * base64 (a data: URI or bare base64), decoded to a file there too. Everything else keeps the
 * shared 1 MiB parser.
 */
import { writeFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { HttpError } from '../../http/errors.js';
import { lazyKoaBody, type KoaBodyOptions } from '../../http/body.js';
import { AV_LIMIT_BYTES } from './detect.js';
import { isOutOfSpace } from '../../storage/out-of-space.js';
import type { UploadedFile } from './service.js';

/** Base64 of the largest image, with room for the data: prefix. */
const BASE64_LIMIT_BYTES = Math.ceil((16 * 1024 * 1024 * 4) / 3) + 1024;

export interface MediaBody { fields: Record<string, unknown>; file?: UploadedFile; thumbnail?: UploadedFile; cleanup(): Promise<void> }

export function mediaBodyParser(incomingDir: string): Middleware {
  const multipart = lazyKoaBody({
    multipart: true, urlencoded: false, json: false, text: false,
    parsedMethods: ['POST', 'PUT'],
    formidable: {
      uploadDir: incomingDir, keepExtensions: false,
      maxFiles: 2, maxFileSize: AV_LIMIT_BYTES, maxTotalFileSize: AV_LIMIT_BYTES + 16 * 1024 * 1024,
      maxFieldsSize: 1024 * 1024, maxFields: 100, allowEmptyFiles: false,
    },
  } as KoaBodyOptions);
  const plain = lazyKoaBody({ jsonLimit: BASE64_LIMIT_BYTES, formLimit: BASE64_LIMIT_BYTES, multipart: false, parsedMethods: ['POST', 'PUT'] } as KoaBodyOptions);

  return async (ctx, next) => {
    try {
      if (ctx.is('multipart')) await multipart(ctx, async () => undefined);
      else await plain(ctx, async () => undefined);
    } catch (error) {
      if (isOutOfSpace(error)) throw error;
      const message = String((error as Error).message ?? '');
      const status = (error as { status?: number }).status === 413 || /max|exceed|too large/i.test(message) ? 413 : 400;
      throw new HttpError(status, status === 413 ? 'Payload too large' : 'Invalid request body');
    }
    const body = await collect(ctx, incomingDir);
    ctx.state.media = body;
    try {
      await next();
    } finally {
      await body.cleanup();
    }
  };
}

async function collect(ctx: Context, incomingDir: string): Promise<MediaBody> {
  const request = ctx.request as { body?: Record<string, unknown>; files?: Record<string, unknown> };
  const fields = request.body && typeof request.body === 'object' ? { ...request.body } : {};
  const temp: string[] = [];
  const fromPart = (name: string): UploadedFile | undefined => {
    const raw = request.files?.[name];
    const part = (Array.isArray(raw) ? raw[0] : raw) as { filepath: string; mimetype?: string | null; size: number } | undefined;
    for (const value of Object.values(request.files ?? {})) for (const one of Array.isArray(value) ? value : [value]) temp.push((one as { filepath: string }).filepath);
    return part ? { path: part.filepath, declaredType: part.mimetype ?? null, size: part.size } : undefined;
  };
  const fromBase64 = async (name: string): Promise<UploadedFile | undefined> => {
    const value = fields[name];
    if (typeof value !== 'string' || value === '') return undefined;
    delete fields[name];
    const match = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w=-]+)*;base64,(.*)$/s.exec(value);
    const data = match ? match[2]! : value;
    if (!/^[A-Za-z0-9+/=\s_-]+$/.test(data)) throw new HttpError(422, `Validation failed: ${name} is neither a file nor base64`);
    const bytes = Buffer.from(data, 'base64');
    const path = join(incomingDir, `b64-${randomBytes(8).toString('hex')}`);
    await writeFile(path, bytes);
    temp.push(path);
    return { path, declaredType: match?.[1] ?? null, size: bytes.length };
  };
  const file = fromPart('file') ?? (await fromBase64('file'));
  const thumbnail = fromPart('thumbnail') ?? (await fromBase64('thumbnail'));
  return {
    fields, file, thumbnail,
    // Files the service moved away are simply not found here any more.
    cleanup: async () => { for (const path of temp) await unlink(path).catch(() => undefined); },
  };
}
