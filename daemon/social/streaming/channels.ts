/**
 * Mastodon's stream names and the channel keys connections subscribe to: `user`,
 * `user:notification`, `direct`, `public` (`:local`, `:remote`, `:media` variants), `hashtag` /
 * `hashtag:local` with a tag, and `list` with a list id. A stream names what the client asked; a
 * channel is what we route on.
 */
export interface StreamRequest {
  stream: string;
  tag?: string;
  list?: string;
}

export interface Channel {
  key: string;
  /** The `stream` array Mastodon puts in each message. */
  name: string[];
  /** Scopes a token must hold (any one). */
  scopes: string[];
  /** Needs a user (the user streams). */
  user: boolean;
  /** A list stream's list: only its owner may subscribe. */
  listId?: string;
}

const PUBLIC = ['public', 'public:local', 'public:remote', 'public:media', 'public:local:media', 'public:remote:media'];
const READ_STATUSES = ['read', 'read:statuses'];

export function channelFor(request: StreamRequest): Channel | { error: string; status: number } {
  const { stream } = request;
  if (stream === 'user') return { key: 'user', name: ['user'], scopes: READ_STATUSES, user: true };
  if (stream === 'user:notification')
    return {
      key: 'user:notification',
      name: ['user:notification'],
      scopes: ['read', 'read:notifications'],
      user: true,
    };
  if (stream === 'direct') return { key: 'direct', name: ['direct'], scopes: READ_STATUSES, user: true };
  if (PUBLIC.includes(stream)) return { key: stream, name: [stream], scopes: READ_STATUSES, user: false };
  if (stream === 'hashtag' || stream === 'hashtag:local') {
    const tag = (request.tag ?? '').replace(/^#/, '').toLowerCase();
    if (!tag) return { error: 'No tag for stream provided', status: 400 };
    return { key: `${stream}:${tag}`, name: [stream, request.tag!], scopes: READ_STATUSES, user: false };
  }
  if (stream === 'list') {
    const list = request.list ?? '';
    if (!/^\d{1,19}$/.test(list)) return { error: 'Missing list name parameter', status: 400 };
    return { key: listChannel(list), name: ['list', list], scopes: ['read', 'read:lists'], user: true, listId: list };
  }
  return { error: 'Unknown stream type', status: 400 };
}

/** The public channels a public status goes to. */
export function publicChannels(local: boolean, withMedia: boolean): string[] {
  const out = ['public', local ? 'public:local' : 'public:remote'];
  if (withMedia) out.push('public:media', local ? 'public:local:media' : 'public:remote:media');
  return out;
}

export function hashtagChannels(tags: readonly string[], local: boolean): string[] {
  return tags.flatMap((tag) => [
    `hashtag:${tag.toLowerCase()}`,
    ...(local ? [`hashtag:local:${tag.toLowerCase()}`] : []),
  ]);
}

export function listChannel(listId: string): string {
  return `list:${listId}`;
}
