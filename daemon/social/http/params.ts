/**
 * Request parameters the Mastodon way: query string and body merged (body wins), arrays only in
 * the bracket form (`types[]=a&types[]=b`, or a JSON array), booleans as Rails casts them.
 */
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.js';
import { notFound } from '../../lib/errors.js';
import { isValidId } from '../../store/ids.js';

export type Params = Record<string, unknown>;

export function params(ctx: Context): Params {
  const body = (ctx.request as { body?: unknown }).body;
  const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? (body as Params) : {};
  return { ...(ctx.query as Params), ...fromBody };
}

export function stringParam(p: Params, name: string): string | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new HttpError(400, `Invalid value for '${name}'`);
}

/** `name[]` (query or form) or a JSON array under `name` (numbers as text); a scalar `name=a` is ignored, as in Rails. */
export function arrayParam(p: Params, name: string): string[] | undefined {
  const raw = p[`${name}[]`] ?? (Array.isArray(p[name]) ? p[name] : undefined);
  if (raw === undefined || raw === null) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  // JSON clients send ids as numbers too.
  return list.flatMap((item) => (typeof item === 'string' ? [item] : typeof item === 'number' ? [String(item)] : []));
}

const FALSE_VALUES = new Set(['false', '0', 'f', 'off', 'no', 'False', 'FALSE', 'F', 'OFF', 'NO']);

/** Rails' boolean cast: anything but the false words (and empty) is true. */
export function boolParam(p: Params, name: string): boolean | undefined {
  const value = p[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return !FALSE_VALUES.has(value);
  throw new HttpError(400, `Invalid value for '${name}'`);
}

/** An id parameter: a malformed one matches nothing (Rails casts it to 0). */
export function idParam(p: Params, name: string): string | undefined {
  const value = p[name];
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  return isValidId(text) ? text : '0';
}

/**
 * A parameter as text, the way Rails' to_s makes it: whatever was sent, an object included (no
 * number, id or word is read from "[object Object]", so such input falls to the caller's default).
 */
export function paramText(value: unknown): string {
  return String(value);
}

/** A parameter of the route's path, as text ('' when the route has none by that name). */
export function pathParam(ctx: Context, name: string): string {
  const params = (ctx as { params?: Record<string, string | undefined> }).params;
  return params?.[name] ?? '';
}

/** The id in a path: anything that is not an id is simply not found. */
export function pathId(ctx: Context, name = 'id'): string {
  const value = pathParam(ctx, name);
  if (!isValidId(value)) throw notFound();
  return value;
}

export function requireString(p: Params, name: string): string {
  const value = stringParam(p, name);
  if (value === undefined || value.trim() === '') throw new HttpError(400, `Missing parameter: ${name}`);
  return value;
}

/** `id[]` of the endpoints that read several records at once (Mastodon's cap: 20); malformed ids are left out. */
export function manyIds(p: Params, max = 20): string[] {
  const raw = p['id[]'] ?? p.id;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return [...new Set(list.map(String).filter((id) => isValidId(id)))].slice(0, max);
}
