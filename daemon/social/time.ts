/** Timestamps are stored as ISO 8601 UTC text with milliseconds, as Mastodon prints them. */
export function nowIso(now = Date.now()): string {
  return new Date(now).toISOString();
}

/** Mastodon shows an account's creation as midnight of its day. */
export function midnightIso(iso: string): string {
  return `${iso.slice(0, 10)}T00:00:00.000Z`;
}
