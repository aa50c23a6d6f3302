/** Account JSON (Mastodon 4.5 REST::AccountSerializer), the credential account, and the partial account. */
import { fieldsJson, sourceFieldsJson } from './profile-fields.js';
import { midnightIso } from '../time.js';
import { renderEmojis } from '../statuses/emojis.js';
import type { AccountRow, UserRow } from './repo.js';

export interface AccountJson {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  indexable: boolean;
  group: boolean;
  created_at: string;
  note: string;
  url: string;
  uri: string;
  avatar: string;
  avatar_static: string;
  header: string;
  header_static: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
  hide_collections: boolean;
  noindex?: boolean;
  emojis: unknown[];
  roles?: unknown[];
  fields: unknown[];
  [key: string]: unknown;
}

export const MISSING_AVATAR = '/avatars/original/missing.png';
export const MISSING_HEADER = '/headers/original/missing.png';

function absolute(baseUrl: string, path: string | null, fallback: string): string {
  const value = path ?? fallback;
  return /^https?:\/\//.test(value) ? value : `${baseUrl}${value}`;
}

export function acctOf(row: Pick<AccountRow, 'username' | 'domain'>): string {
  return row.domain ? `${row.username}@${row.domain}` : row.username;
}

export function serializeAccount(row: AccountRow, baseUrl: string): AccountJson {
  const suspended = row.suspended_at !== null;
  const avatar = absolute(baseUrl, row.avatar, MISSING_AVATAR);
  const header = absolute(baseUrl, row.header, MISSING_HEADER);
  const json: AccountJson = {
    id: row.id,
    username: row.username,
    acct: acctOf(row),
    display_name: suspended ? '' : row.display_name,
    locked: suspended ? false : Boolean(row.locked),
    bot: Boolean(row.bot),
    discoverable: Boolean(row.discoverable),
    indexable: false,
    group: false,
    created_at: midnightIso(row.created_at),
    note: suspended ? '' : row.note,
    url: row.url ?? row.uri,
    uri: row.uri,
    avatar: suspended ? absolute(baseUrl, null, MISSING_AVATAR) : avatar,
    avatar_static: suspended
      ? absolute(baseUrl, null, MISSING_AVATAR)
      : absolute(baseUrl, row.avatar_static ?? row.avatar, MISSING_AVATAR),
    header: suspended ? absolute(baseUrl, null, MISSING_HEADER) : header,
    header_static: suspended
      ? absolute(baseUrl, null, MISSING_HEADER)
      : absolute(baseUrl, row.header_static ?? row.header, MISSING_HEADER),
    followers_count: row.followers_count,
    following_count: row.following_count,
    statuses_count: row.statuses_count,
    last_status_at: row.last_status_at ? row.last_status_at.slice(0, 10) : null,
    hide_collections: false,
    emojis: suspended ? [] : renderEmojis(row.emojis),
    fields: suspended ? [] : fieldsJson(row.fields),
  };
  if (suspended) json.suspended = true;
  if (row.silenced_at) json.limited = true;
  if (!row.domain) {
    json.noindex = false;
    json.roles = [];
  }
  return json;
}

export function serializeCredentialAccount(
  row: AccountRow,
  user: UserRow,
  followRequestsCount: number,
  baseUrl: string,
): AccountJson {
  return {
    ...serializeAccount(row, baseUrl),
    source: {
      privacy: user.default_privacy,
      sensitive: Boolean(user.default_sensitive),
      language: user.default_language,
      note: row.note_source,
      fields: sourceFieldsJson(row.fields),
      follow_requests_count: followRequestsCount,
      hide_collections: false,
      discoverable: Boolean(row.discoverable),
      indexable: false,
      attribution_domains: [],
      quote_policy: 'public',
    },
    role:
      user.role === 'owner'
        ? { id: '3', name: 'Owner', permissions: '1', color: '', highlighted: true }
        : { id: '-99', name: '', permissions: '65536', color: '', highlighted: false },
  };
}

export interface PartialAccountJson {
  id: string;
  acct: string;
  locked: boolean;
  bot: boolean;
  url: string;
  avatar: string;
  avatar_static: string;
}

/** Exactly the seven keys Mastodon 4.3–4.5 documents. */
export function serializePartialAccount(account: AccountJson): PartialAccountJson {
  return {
    id: account.id,
    acct: account.acct,
    locked: account.locked,
    bot: account.bot,
    url: account.url,
    avatar: account.avatar,
    avatar_static: account.avatar_static,
  };
}
