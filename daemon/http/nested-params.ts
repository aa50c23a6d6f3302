/**
 * Bracketed parameter names (`a[b][c]`, `a[]`, `fields_attributes[0][name]`) nest as Rails nests
 * them, the same way whether they came url-encoded, as multipart fields or as JSON keys: one qs
 * configuration for the three (co-body parses url-encoded bodies with qs and these options).
 */
import type { IParseOptions } from 'qs';
import { lazy } from '../lib/on-first-use.js';

/** Rails reads `a.b` as one name: dots do not nest. */
export const NESTING: IParseOptions = { allowDots: false, depth: 5, parameterLimit: 1000 };

const qs = lazy('the parameter parser (qs)', async () => (await import('qs')).default);

/** The fields with bracketed names nested; fields without any are handed back as they are. */
export async function nestBracketed(fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!Object.keys(fields).some((name) => name.includes('['))) return fields;
  return (await qs()).parse(fields as Record<string, string>, NESTING);
}
