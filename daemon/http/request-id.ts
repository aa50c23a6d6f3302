/** Every answer names its request (X-Request-Id, as Mastodon's do): a user quotes it in a bug report. */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

export function requestId(): Middleware {
  return async (ctx, next) => {
    ctx.set('X-Request-Id', randomUUID());
    await next();
  };
}
