/** Timestamps are stored as ISO 8601 UTC text with milliseconds, as Mastodon prints them. */
import { unprocessable } from '../lib/errors.js';

export function nowIso(now = Date.now()): string {
  return new Date(now).toISOString();
}

/** Mastodon shows an account's creation as midnight of its day. */
export function midnightIso(iso: string): string {
  return `${iso.slice(0, 10)}T00:00:00.000Z`;
}

/** The last instant stored: ISO text sorts as time does only while the year has four digits. */
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** `seconds` after `now`, as stored; 422 naming `what` when that is no date we can store (1e308 seconds). */
export function isoAfterSeconds(now: number, seconds: number, what: string): string {
  const at = now + seconds * 1000;
  if (!Number.isFinite(at) || at > LATEST_MS || at < 0)
    throw unprocessable(`Validation failed: ${what} is out of range`);
  return nowIso(at);
}
