/**
 * The JSON-LD `@context` of every document we publish, as Mastodon writes it: ActivityStreams, the
 * security vocabulary when the document carries a key, then the extension terms the document uses
 * (Mastodon's as:, toot:, schema: and ostatus: terms). A JSON-LD processor (Fedify and what is built
 * on it) drops a term that no context defines, or turns it into a blank node: every document goes
 * out through `withContext`, which defines each extension term found anywhere in it.
 */
import type { Json } from './ld.js';

export const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
export const SECURITY_CONTEXT = 'https://w3id.org/security/v1';

const PREFIXES: Record<string, string> = {
  toot: 'http://joinmastodon.org/ns#',
  schema: 'http://schema.org#',
  ostatus: 'http://ostatus.org#',
};

/** Mastodon's extension terms (its context helper's map); the prefix is the part before the colon. */
const TERMS: Record<string, string | Json> = {
  manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
  sensitive: 'as:sensitive',
  Hashtag: 'as:Hashtag',
  movedTo: { '@id': 'as:movedTo', '@type': '@id' },
  alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
  Emoji: 'toot:Emoji',
  featured: { '@id': 'toot:featured', '@type': '@id' },
  featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
  PropertyValue: 'schema:PropertyValue',
  value: 'schema:value',
  atomUri: 'ostatus:atomUri',
  inReplyToAtomUri: 'ostatus:inReplyToAtomUri',
  conversation: 'ostatus:conversation',
  focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
  blurhash: 'toot:blurhash',
  discoverable: 'toot:discoverable',
  indexable: 'toot:indexable',
  memorial: 'toot:memorial',
  votersCount: 'toot:votersCount',
  suspended: 'toot:suspended',
  attributionDomains: { '@id': 'toot:attributionDomains', '@type': '@id' },
};

/** The document with the `@context` its terms need (replacing the one it had; embedded documents carry none). */
export function withContext(body: Json): Json {
  const { '@context': _old, ...document } = body;
  const used = new Set<string>();
  collectTerms(document, used);
  const extensions: Json = {};
  const terms = Object.keys(TERMS).filter((term) => used.has(term));
  for (const prefix of Object.keys(PREFIXES)) {
    if (terms.some((term) => prefixOf(TERMS[term]) === prefix)) extensions[prefix] = PREFIXES[prefix];
  }
  for (const term of terms) extensions[term] = TERMS[term];
  const context: unknown[] = [AS_CONTEXT];
  if (used.has('publicKey')) context.push(SECURITY_CONTEXT);
  if (terms.length) context.push(extensions);
  return { '@context': context.length === 1 ? AS_CONTEXT : context, ...document };
}

/** Every property name and every type name in the document, embedded objects included. */
function collectTerms(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectTerms(item, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '@context') continue;
    into.add(key);
    if (key === 'type') for (const type of [inner].flat()) if (typeof type === 'string') into.add(type);
    // A language map's keys are language tags, not terms.
    if (!key.endsWith('Map')) collectTerms(inner, into);
  }
}

function prefixOf(definition: string | Json): string {
  const iri = typeof definition === 'string' ? definition : String(definition['@id']);
  return iri.slice(0, iri.indexOf(':'));
}

/** An embedded document without its own `@context` (the outer document's covers it). */
export function withoutContext(document: Json): Json {
  const { '@context': _context, ...inner } = document;
  return inner;
}
