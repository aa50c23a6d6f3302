/**
 * Reading JSON-LD from peers defensively: values may be strings, objects with an id, arrays or
 * anything else. These helpers never throw; callers decide what a missing value means.
 */
export type Json = Record<string, unknown>;

export class InvalidDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidDocumentError';
  }
}

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const PUBLIC_ALIASES = new Set([PUBLIC, 'as:Public', 'Public']);

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The id of a value that is either a link (string) or an embedded object. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  return null;
}

export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

export function ids(value: unknown): string[] {
  return asArray(value)
    .map(idOf)
    .filter((id): id is string => id !== null);
}

export function isPublic(id: string): boolean {
  return PUBLIC_ALIASES.has(id);
}

export function httpUrl(value: unknown): string | null {
  const text = str(value);
  if (!text) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** The host (with port) of a URL, lower case; null when it is not one. */
export function hostOf(value: string): string | null {
  try {
    return new URL(value).host.toLowerCase();
  } catch {
    return null;
  }
}

/** A type test that tolerates arrays of types. */
export function hasType(object: Json, ...types: string[]): boolean {
  return asArray(object.type).some((type) => typeof type === 'string' && types.includes(type));
}

/** A UNIQUE violation: another request stored the same object a moment before us (either engine). */
export { isUniqueViolation } from '../../../store/dialect.js';

/** Mastodon publishes times to the second. */
export function isoSeconds(iso: string): string {
  return `${iso.slice(0, 19)}Z`;
}
