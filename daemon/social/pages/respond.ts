/**
 * How every page is answered: security headers with a strict CSP, kept whole in the response
 * cache while the database is unchanged, with an ETag and 304 when it still holds.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { ResponseCache } from '../render/response-cache.js';

/** No scripts at all; styles and media only from the box (and remote https media, cached or not). */
export const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; media-src 'self' https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Sets the page's status, type, body and its ETag (a hash of the body). */
export function sendPage(ctx: Context, type: string, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = type;
  ctx.set('ETag', `"${createHash('sha1').update(body).digest('base64url')}"`);
  ctx.body = body;
}

/**
 * Answers with what `render` sends (through sendPage), from `responses` (when given) while nothing
 * has been written since.
 */
export async function answerPage(
  ctx: Context,
  responses: ResponseCache | null,
  type: string,
  render: () => Promise<void>,
): Promise<void> {
  ctx.set('Content-Security-Policy', CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  // Anyone sees the same page, which may change with any post: caches keep it but ask again.
  ctx.set('Cache-Control', 'public, no-cache');
  if (responses) await responses.serve(ctx, `page ${ctx.url}`, ['ETag'], render, type);
  else await render();
  if (ctx.status === 200 && matches(ctx.get('If-None-Match'), ctx.response.get('ETag'))) ctx.status = 304;
}

/**
 * RFC 9110's If-None-Match on GET (weak comparison). Not koa's `fresh`, which refuses a 304 whenever
 * the request says `Cache-Control: no-cache`, as fetch() adds to every conditional request.
 */
function matches(header: string, etag: string): boolean {
  if (!header || !etag) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
