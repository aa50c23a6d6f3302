/**
 * /api/v1/media and /api/v2/media (upload), GET and PUT /api/v1/media/:id, and the files
 * themselves under /system/media_attachments/files with long cache headers. The upload routes
 * check the token and count the attempt against the upload limit before the body is read, so an
 * unauthorised or throttled upload is never written to disk.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Context, Middleware } from 'koa';
import { authenticate, requireScope } from '../../http/auth.js';
import { notFound, unprocessable } from '../../lib/errors.js';
import { pathId, pathParam, stringParam } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { write } from '../oauth/scopes.js';
import type { OAuthService } from '../oauth/service.js';
import { mediaBodyParser, type MediaBody } from './body.js';
import { serializeMedia } from './serialize.js';
import type { MediaInput, MediaService } from './service.js';
import { FILE_NAME, MEDIA_URL_PREFIX } from './storage.js';

const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  wav: 'audio/wav',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
};

export function mediaRoutes(routes: Routes, service: MediaService, oauth: OAuthService): void {
  const auth: Middleware[] = [authenticate(oauth.resolve), requireScope(write('media'))];
  const count: Middleware = async (ctx, next) => {
    ctx.set(await service.countUpload(viewerId(ctx)));
    await next();
  };
  const body = mediaBodyParser(service.storage.incoming);
  const route = (method: 'post' | 'put', path: string, handler: (ctx: Context) => Promise<void>) => {
    routes.router[method](path, ...auth, ...(method === 'post' ? [count] : []), body, async (ctx) => {
      await handler(ctx);
    });
  };

  const input = (body: MediaBody): MediaInput => ({
    description: stringParam(body.fields, 'description'),
    focus: stringParam(body.fields, 'focus'),
    thumbnail: body.thumbnail,
  });

  const upload = (waitForProcessing: boolean) => async (ctx: Context) => {
    const body = ctx.state.media as MediaBody;
    if (!body.file) throw unprocessable("Validation failed: File can't be blank");
    const { id, done } = await service.upload(viewerId(ctx), body.file, input(body));
    if (waitForProcessing) await done;
    const row = (await service.byId(id))!;
    if (row.state === 'failed') {
      // A v1 client never learns this id: nothing of the attempt stays.
      await service.discard(id);
      throw unprocessable('Validation failed: File could not be processed');
    }
    ctx.status = row.state === 'done' ? 200 : 202;
    ctx.body = serializeMedia(row, service.storage);
  };
  route('post', '/api/v1/media', upload(true));
  route('post', '/api/v2/media', upload(false));

  route('put', '/api/v1/media/:id', async (ctx) => {
    const row = await service.update(viewerId(ctx), pathId(ctx), input(ctx.state.media as MediaBody));
    ctx.body = serializeMedia(row, service.storage);
  });

  routes.get('/api/v1/media/:id', { scopes: write('media') }, async (ctx) => {
    const row = await service.ownUnattached(viewerId(ctx), pathId(ctx));
    if (row.state === 'failed') throw unprocessable('Validation failed: File could not be processed');
    ctx.status = row.state === 'done' ? 200 : 206;
    ctx.body = serializeMedia(row, service.storage);
  });

  routes.delete('/api/v1/media/:id', { scopes: write('media') }, async (ctx) => {
    await service.delete(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });

  routes.get(`${MEDIA_URL_PREFIX}/:id/:tag/:name`, 'open', async (ctx) => {
    const id = pathId(ctx);
    const name = pathParam(ctx, 'name');
    if (!FILE_NAME.test(name) || name.startsWith('upload.') || !service.storage.tagged(id, pathParam(ctx, 'tag')))
      throw notFound();
    const path = service.storage.path(id, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw notFound();
    ctx.type = CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
    ctx.length = info.size;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('Last-Modified', info.mtime.toUTCString());
    ctx.body = createReadStream(path);
  });
}
