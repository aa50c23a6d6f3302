/**
 * The server a page request comes from, when it says so. Fediverse servers fetching a link (for a
 * preview, or to resolve it) name themselves in their User-Agent: Mastodon and GoToSocial as
 * `(+https://host/)`, Misskey as `(https://host)`, Pleroma and Akkoma as `; https://host`. A page
 * or feed never shows such a server what an author who blocks its domain posted.
 */
const SERVER_URL = /\bhttps?:\/\/([a-z0-9.-]+(?::\d{1,5})?)/i;

export function requesterDomain(userAgent: string): string | null {
  return SERVER_URL.exec(userAgent)?.[1]?.toLowerCase().replace(/\.$/, '') ?? null;
}
