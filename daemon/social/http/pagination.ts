/**
 * Mastodon's paging: max_id / since_id / min_id cursors, `limit` (default and cap per endpoint,
 * Rails' `min(abs(to_i(limit)), max)`), and the Link header: present only for a non-empty page,
 * then always with both rels, `next` first; query keys sorted, request cursors not carried.
 */
import type { Context } from 'koa';
import { unprocessable } from '../../lib/errors.js';
import { idParam, paramText, type Params } from './params.js';
import type { PageQuery } from '../store/paging.js';

/** `offset` as Rails reads it (not a number: 0); negative or past what a query can skip is 422. */
export function offsetParam(p: Params): number | undefined {
  const raw = p.offset;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const parsed = Number.parseInt(paramText(raw), 10);
  if (Number.isNaN(parsed)) return 0;
  if (!Number.isSafeInteger(parsed) || parsed < 0)
    throw unprocessable('Validation failed: Offset must be a number from 0');
  return parsed;
}

export function limitParam(p: Params, fallback: number, max = fallback * 2): number {
  const raw = p.limit;
  if (raw === undefined || raw === null || raw === '') return fallback;
  const parsed = Number.parseInt(paramText(raw), 10);
  if (!Number.isFinite(parsed)) return 0;
  return Math.min(Math.abs(parsed), max);
}

export function pageQuery(p: Params, fallback: number, max?: number): PageQuery {
  return {
    maxId: idParam(p, 'max_id'),
    sinceId: idParam(p, 'since_id'),
    minId: idParam(p, 'min_id'),
    limit: limitParam(p, fallback, max),
  };
}

export type KeptParams = Record<string, string | string[] | undefined>;

/** The query parameters a Link URL keeps, taken from the request as given. */
export function keep(p: Params, names: string[]): KeptParams {
  const kept: KeptParams = {};
  for (const name of names) {
    const bracket = p[`${name}[]`];
    if (bracket !== undefined) kept[`${name}[]`] = (Array.isArray(bracket) ? bracket : [bracket]).map(String);
    else if (Array.isArray(p[name])) kept[`${name}[]`] = (p[name] as unknown[]).map(String);
    else if (p[name] !== undefined && p[name] !== null && typeof p[name] !== 'object') kept[name] = paramText(p[name]);
  }
  return kept;
}

function toQuery(values: KeptParams): string {
  const parts: string[] = [];
  for (const key of Object.keys(values).sort()) {
    const value = values[key];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value])
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(item)}`);
  }
  return parts.join('&');
}

export interface LinkOptions {
  baseUrl: string;
  path: string;
  kept: KeptParams;
  /** Cursor for rel=next (max_id), or null to leave it out. */
  nextMaxId: string | null;
  /** Cursor for rel=prev (min_id), or null to leave it out. */
  prevMinId: string | null;
}

export function linkHeader({ baseUrl, path, kept, nextMaxId, prevMinId }: LinkOptions): string | null {
  const links: string[] = [];
  if (nextMaxId) links.push(`<${baseUrl}${path}?${toQuery({ ...kept, max_id: nextMaxId })}>; rel="next"`);
  if (prevMinId) links.push(`<${baseUrl}${path}?${toQuery({ ...kept, min_id: prevMinId })}>; rel="prev"`);
  return links.length ? links.join(', ') : null;
}

export function setLink(ctx: Context, options: LinkOptions): void {
  const header = linkHeader(options);
  if (header) ctx.set('Link', header);
}
