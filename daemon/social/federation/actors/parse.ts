/**
 * An actor document from a peer, checked before anything is stored: an id on the host it was
 * fetched from, an inbox, a username, and a public key owned by the actor.
 */
import { asArray, hasType, hostOf, httpUrl, idOf, InvalidDocumentError, isObject, str } from '../objects/ld.js';

export const ACTOR_TYPES = ['Person', 'Service', 'Application', 'Group', 'Organization'];

export interface RemoteActorDoc {
  uri: string;
  type: string;
  domain: string;
  username: string;
  displayName: string;
  summaryHtml: string;
  url: string | null;
  inbox: string;
  sharedInbox: string | null;
  outbox: string | null;
  followers: string | null;
  following: string | null;
  featured: string | null;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  avatar: string | null;
  header: string | null;
  keyId: string;
  publicKeyPem: string;
  alsoKnownAs: string[];
  movedTo: string | null;
  /** The raw `tag` value, for its `Emoji` entries (read with the address policy). */
  tag: unknown;
}

const USERNAME = /^[\p{L}\p{N}_.-]{1,100}$/u;

export function parseActor(doc: unknown, fetchedFrom?: string): RemoteActorDoc {
  if (!isObject(doc)) throw new InvalidDocumentError('actor document is not a JSON object');
  const uri = httpUrl(doc.id);
  if (!uri) throw new InvalidDocumentError('actor has no id');
  if (!hasType(doc, ...ACTOR_TYPES)) throw new InvalidDocumentError(`${uri} is not an actor`);
  const domain = hostOf(uri)!;
  if (fetchedFrom && hostOf(fetchedFrom) !== domain)
    throw new InvalidDocumentError(`actor ${uri} was served by another host`);
  const inbox = httpUrl(doc.inbox);
  if (!inbox || hostOf(inbox) !== domain) throw new InvalidDocumentError(`actor ${uri} has no inbox of its own`);
  const username = str(doc.preferredUsername);
  if (!username || !USERNAME.test(username))
    throw new InvalidDocumentError(`actor ${uri} has no valid preferredUsername`);
  const key = isObject(doc.publicKey) ? doc.publicKey : asArray(doc.publicKey).find(isObject);
  const keyId = key ? str(key.id) : null;
  const pem = key ? str(key.publicKeyPem) : null;
  if (!key || !keyId || !pem || (idOf(key.owner) ?? uri) !== uri)
    throw new InvalidDocumentError(`actor ${uri} has no public key of its own`);
  const endpoints = isObject(doc.endpoints) ? doc.endpoints : {};
  const sharedInbox = httpUrl(endpoints.sharedInbox);
  const image = (value: unknown) =>
    httpUrl(
      isObject(value)
        ? value.url
        : asArray(value)
            .map((v) => (isObject(v) ? v.url : null))
            .find(Boolean),
    );
  const types = asArray(doc.type).filter((t): t is string => typeof t === 'string');
  return {
    uri,
    domain,
    username,
    keyId,
    publicKeyPem: pem,
    inbox,
    type: types.find((t) => ACTOR_TYPES.includes(t)) ?? 'Person',
    displayName: (str(doc.name) ?? '').slice(0, 100),
    summaryHtml: (str(doc.summary) ?? '').slice(0, 10_000),
    url: httpUrl(doc.url) ?? (isObject(doc.url) ? httpUrl(doc.url.href) : null),
    sharedInbox: sharedInbox && hostOf(sharedInbox) === domain ? sharedInbox : null,
    outbox: httpUrl(doc.outbox),
    followers: httpUrl(doc.followers),
    following: httpUrl(doc.following),
    featured: httpUrl(doc.featured),
    locked: doc.manuallyApprovesFollowers === true,
    bot: types.includes('Service') || types.includes('Application'),
    discoverable: doc.discoverable === true,
    avatar: image(doc.icon),
    header: image(doc.image),
    alsoKnownAs: asArray(doc.alsoKnownAs)
      .map(idOf)
      .filter((id): id is string => id !== null)
      .slice(0, 20),
    movedTo: httpUrl(idOf(doc.movedTo)),
    tag: doc.tag,
  };
}
