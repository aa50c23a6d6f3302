/** The JSON-LD contexts of what we publish, as Mastodon writes them. */
export const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
export const SECURITY_CONTEXT = 'https://w3id.org/security/v1';

export const ACTOR_CONTEXT = [
  AS_CONTEXT,
  SECURITY_CONTEXT,
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
    discoverable: 'toot:discoverable',
    movedTo: { '@id': 'as:movedTo', '@type': '@id' },
    alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
  },
];

export const NOTE_CONTEXT = [
  AS_CONTEXT,
  {
    sensitive: 'as:sensitive',
    toot: 'http://joinmastodon.org/ns#',
    blurhash: 'toot:blurhash',
    votersCount: 'toot:votersCount',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
  },
];
