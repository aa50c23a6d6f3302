/**
 * Writes the social routes' JSON bodies as bytes through renderJsonBytes, which embeds rendered
 * accounts and statuses as their stored bytes (a string body would be measured for
 * Content-Length and encoded again to write).
 */
import type { Middleware } from 'koa';
import { isJsonBody, renderJsonBytes } from './json-text.js';

export const renderedJsonBodies: Middleware = async (ctx, next) => {
  await next();
  if (isJsonBody(ctx.body)) {
    // Koa typed the object body already (JSON, or what the route chose, e.g. activity+json).
    const bytes = renderJsonBytes(ctx.body);
    if (!ctx.response.get('Content-Type')) ctx.type = 'application/json';
    ctx.body = bytes;
  }
};
