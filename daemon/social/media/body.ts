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
import { NESTING } from '../../http/nested-params.js';
import { multipartParser, uploadOf } from '../http/multipart.js';
import { AV_LIMIT_BYTES } from './detect.js';
import { isOutOfSpace } from '../../storage/out-of-space.js';
import type { UploadedFile } from './service.js';

/** Base64 of the largest image, with room for the data: prefix. */
const BASE64_LIMIT_BYTES = Math.ceil((16 * 1024 * 1024 * 4) / 3) + 1024;

export interface MediaBody {
  fields: Record<string, unknown>;
  file?: UploadedFile;
  thumbnail?: UploadedFile;
}

export function mediaBodyParser(incomingDir: string): Middleware {
  const multipart = multipartParser({
    uploadDir: incomingDir,
    methods: ['POST', 'PUT'],
    files: 2,
    fileBytes: AV_LIMIT_BYTES,
    totalFileBytes: AV_LIMIT_BYTES + 16 * 1024 * 1024,
    fieldBytes: 1024 * 1024,
  });
  const plain = lazyKoaBody({
    jsonLimit: BASE64_LIMIT_BYTES,
    formLimit: BASE64_LIMIT_BYTES,
    multipart: false,
    queryString: NESTING,
    parsedMethods: ['POST', 'PUT'],
  } as KoaBodyOptions);
  // Decoded base64 files are removed when the request ends, even if decoding the second one fails.
  const withBody: Middleware = async (ctx, next) => {
    const decoded: string[] = [];
    try {
      ctx.state.media = await collect(ctx, incomingDir, decoded);
      await next();
    } finally {
      // Files the service moved away are simply not found here any more.
      await Promise.all(decoded.map((path) => unlink(path).catch(() => undefined)));
    }
  };

  return async (ctx, next) => {
    if (ctx.is('multipart')) {
      await multipart(ctx, async () => {
        await withBody(ctx, next);
      });
      return;
    }
    try {
      await plain(ctx, async () => undefined);
    } catch (error) {
      if (error instanceof HttpError || isOutOfSpace(error)) throw error;
      const tooLarge = (error as { status?: number }).status === 413;
      throw new HttpError(tooLarge ? 413 : 400, tooLarge ? 'Payload too large' : 'Invalid request body');
    }
    await withBody(ctx, next);
  };
}

async function collect(ctx: Context, incomingDir: string, decoded: string[]): Promise<MediaBody> {
  const request = ctx.request as { body?: Record<string, unknown> };
  const fields = request.body && typeof request.body === 'object' ? { ...request.body } : {};
  const fromPart = (name: string): UploadedFile | undefined => {
    const part = uploadOf(ctx, name);
    return part ? { path: part.filepath, declaredType: part.mimetype ?? null, size: part.size } : undefined;
  };
  const fromBase64 = async (name: string): Promise<UploadedFile | undefined> => {
    const value = fields[name];
    if (typeof value !== 'string' || value === '') return undefined;
    delete fields[name];
    const match = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w=-]+)*;base64,(.*)$/s.exec(value);
    const data = match ? match[2] : value;
    if (!/^[A-Za-z0-9+/=\s_-]+$/.test(data))
      throw new HttpError(422, `Validation failed: ${name} is neither a file nor base64`);
    const bytes = Buffer.from(data, 'base64');
    const path = join(incomingDir, `b64-${randomBytes(8).toString('hex')}`);
    decoded.push(path);
    await writeFile(path, bytes);
    return { path, declaredType: match?.[1] ?? null, size: bytes.length };
  };
  const file = fromPart('file') ?? (await fromBase64('file'));
  const thumbnail = fromPart('thumbnail') ?? (await fromBase64('thumbnail'));
  return { fields, file, thumbnail };
}
