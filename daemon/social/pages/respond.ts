/** How every page is answered: security headers, a strict CSP, an ETag and 304 when it still holds. */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';

/** No scripts at all; styles and media only from the box (and remote https media, cached or not). */
export const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; media-src 'self' https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function sendPage(ctx: Context, type: string, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = type;
  ctx.set('Content-Security-Policy', CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  // Anyone sees the same page, which may change with any post: caches keep it but ask again.
  ctx.set('Cache-Control', 'public, no-cache');
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  ctx.set('ETag', etag);
  if (status === 200 && matches(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = body;
}

/**
 * RFC 9110's If-None-Match on GET (weak comparison). Not koa's `fresh`, which refuses a 304 whenever
 * the request says `Cache-Control: no-cache`, as fetch() adds to every conditional request.
 */
function matches(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
