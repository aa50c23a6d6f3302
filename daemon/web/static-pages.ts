/**
 * The static pages of web/ (setup portal, owner dashboard): a fixed list of files, read once,
 * served with their type and no-cache headers (a phone on the setup AP must never keep a stale
 * portal, and the dashboard changes with each release).
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';
import { installPath } from '../install-paths.js';

/** web/ at the root of the installation. */
const WEB_ROOT = installPath('web');

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
};

export const NO_CACHE = {
  'Cache-Control': 'no-cache, no-store, must-revalidate, max-age=0',
  Pragma: 'no-cache',
  Expires: '0',
};

export interface StaticPage {
  body: Buffer;
  type: string;
}

export function loadPage(relativePath: string): StaticPage {
  const body = readFileSync(join(WEB_ROOT, relativePath));
  const extension = relativePath.slice(relativePath.lastIndexOf('.') + 1);
  return { body, type: TYPES[extension] ?? 'application/octet-stream' };
}

export function sendPage(ctx: Context, page: StaticPage): void {
  ctx.set(NO_CACHE);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = page.type;
  ctx.body = page.body;
}
