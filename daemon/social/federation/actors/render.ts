/** The actor document of a local account (Mastodon's Person shape). */
import type { AccountRow } from '../../accounts/repo.js';
import { withContext } from '../objects/context.js';
import { imageObject } from '../objects/media-types.js';
import type { Json } from '../objects/ld.js';
import { emojiTags } from '../objects/emoji-tags.js';
import type { StoredEmoji } from '../../statuses/emojis.js';

export interface LocalActorExtras {
  publicKeyPem: string;
  movedTo: string | null;
  alsoKnownAs: string[];
}

export function keyIdOf(accountUri: string): string {
  return `${accountUri}#main-key`;
}

export function renderActor(account: AccountRow, baseUrl: string, extras: LocalActorExtras): Json {
  const uri = account.uri;
  const image = (path: string | null) =>
    path ? imageObject(/^https?:/.test(path) ? path : `${baseUrl}${path}`) : undefined;
  const doc: Json = {
    id: uri,
    type: account.bot ? 'Service' : 'Person',
    following: `${uri}/following`,
    followers: `${uri}/followers`,
    inbox: `${uri}/inbox`,
    outbox: `${uri}/outbox`,
    featured: `${uri}/collections/featured`,
    featuredTags: `${uri}/collections/tags`,
    preferredUsername: account.username,
    name: account.display_name,
    summary: account.note,
    url: account.url ?? uri,
    manuallyApprovesFollowers: Boolean(account.locked),
    discoverable: Boolean(account.discoverable),
    // Mastodon's opt-in to full-text search by other servers: the box offers no such setting.
    indexable: false,
    memorial: false,
    published: `${account.created_at.slice(0, 10)}T00:00:00Z`,
    publicKey: { id: keyIdOf(uri), owner: uri, publicKeyPem: extras.publicKeyPem },
    endpoints: { sharedInbox: `${baseUrl}/inbox` },
    icon: image(account.avatar),
    image: image(account.header),
    tag: emojiTags(JSON.parse(account.emojis || '[]') as StoredEmoji[]),
    attachment: profileFields(account.fields),
  };
  if (extras.alsoKnownAs.length) doc.alsoKnownAs = extras.alsoKnownAs;
  if (extras.movedTo) doc.movedTo = extras.movedTo;
  for (const key of Object.keys(doc)) if (doc[key] === undefined) delete doc[key];
  return withContext(doc);
}

/** The profile's fields as Mastodon publishes them: PropertyValues with the value as HTML. */
function profileFields(stored: string | null): Json[] {
  let fields: Array<{ name?: unknown; value?: unknown }>;
  try {
    fields = JSON.parse(stored || '[]') as typeof fields;
  } catch {
    return [];
  }
  return fields
    .filter((field) => typeof field.name === 'string' && typeof field.value === 'string')
    .map((field) => ({ type: 'PropertyValue', name: field.name, value: field.value }));
}
