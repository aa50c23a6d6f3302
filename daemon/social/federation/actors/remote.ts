/**
 * Remote actors: fetched over ActivityPub (or found through WebFinger), checked, stored as
 * accounts with their URIs, inboxes and key, and refreshed when their key stops verifying
 * (rotation) or an Update arrives.
 */
import { nowIso } from '../../time.js';
import { sanitizeRemoteHtml } from '../objects/sanitize.js';
import { InvalidDocumentError, isObject, isUniqueViolation, str } from '../objects/ld.js';
import { isLocalUri, type FetchContext } from '../context.js';
import { schemeFor } from '../net/address-policy.js';
import { ActorsRepo, type RemoteImages, type ActorRow } from './repo.js';
import { additionalKeyPem } from './keys.js';
import { parseActor, type RemoteActorDoc } from './parse.js';
import { usedEmojis } from '../../statuses/emojis.js';
import { parseEmojiTags } from '../objects/emoji-tags.js';
import type { AccountRow } from '../../accounts/repo.js';
import type { RemoteAccountFinder } from '../../statuses/posting-hooks.js';

export class RemoteActors implements RemoteAccountFinder {
  readonly repo: ActorsRepo;

  constructor(readonly fed: FetchContext) {
    this.repo = new ActorsRepo(fed.social);
  }

  /** A mentioned account by its address, fetched when not known yet; undefined when its server does not know it. */
  async account(username: string, domain: string): Promise<AccountRow | undefined> {
    try {
      const actor = await this.resolveAcct(username, domain);
      return await this.fed.services.accounts.byId(actor.id);
    } catch (error) {
      this.fed.log.info('mentioned account not found', {
        acct: `${username}@${domain}`,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  /** The account of an actor URI: stored, or fetched and stored. Local URIs are never fetched. */
  async resolve(uri: string, options: { refresh?: boolean } = {}): Promise<ActorRow> {
    const known = await this.repo.byUri(uri);
    if (known && (known.domain === null || !options.refresh)) return known;
    if (isLocalUri(this.fed, uri)) throw new InvalidDocumentError(`no local actor ${uri}`);
    const { url, json } = await this.fed.client.getJson(uri);
    const doc = parseActor(json, url);
    if (doc.uri !== uri && !known) {
      // Fetched through an alias: the document's own id is the account's uri.
      const byId = await this.repo.byUri(doc.uri);
      if (byId && !options.refresh) return byId;
    }
    return this.store(doc);
  }

  /** Inserts or updates the account of a checked actor document. */
  async store(doc: RemoteActorDoc): Promise<ActorRow> {
    const now = nowIso(this.fed.social.now());
    const existing = (await this.repo.byUri(doc.uri)) ?? (await this.repo.byAcct(doc.username, doc.domain));
    const before = existing ? await this.repo.images(existing.id) : undefined;
    const pictures = { ...picture('avatar', doc.avatar, before), ...picture('header', doc.header, before) };
    const note = sanitizeRemoteHtml(doc.summaryHtml);
    const account = {
      username: doc.username,
      domain: doc.domain,
      display_name: doc.displayName,
      note,
      emojis: JSON.stringify(usedEmojis(parseEmojiTags(doc.tag, this.fed.policy), doc.displayName, note)),
      locked: doc.locked,
      bot: doc.bot,
      discoverable: doc.discoverable,
      ...pictures,
      uri: doc.uri,
      url: doc.url ?? doc.uri,
      inbox_url: doc.inbox,
      outbox_url: doc.outbox,
      shared_inbox_url: doc.sharedInbox,
      followers_url: doc.followers,
      public_key: doc.publicKeyPem,
      updated_at: now,
    };
    const extra = {
      key_id: doc.keyId,
      type: doc.type,
      following_url: doc.following,
      featured_url: doc.featured,
      also_known_as: JSON.stringify(doc.alsoKnownAs),
      fetched_at: now,
      avatar_source: doc.avatar,
      header_source: doc.header,
    };
    let id = existing?.id;
    try {
      await this.fed.social.db.transaction(async (trx) => {
        if (id) {
          await this.repo.update(trx, id, account, extra);
        } else {
          id = this.fed.social.ids.next();
          await this.repo.insert(trx, { id, ...account, created_at: now }, { account_id: id, ...extra });
        }
      });
    } catch (error) {
      // Two requests met the same new actor at once: the first one stored it.
      const stored = !existing && isUniqueViolation(error) ? await this.repo.byUri(doc.uri) : undefined;
      if (stored) return stored;
      throw error;
    }
    // Local copies of pictures the peer replaced are of no use any more.
    for (const kind of ['avatar', 'header'] as const) {
      if (before?.[kind] && before[kind] !== pictures[kind]) await this.fed.services.accounts.removeImage(before[kind]);
    }
    if (existing) this.fed.social.events.emit('account.updated', { accountId: id! });
    else this.fed.social.events.emit('account.created', { accountId: id! });
    return (await this.repo.byId(id!))!;
  }

  /**
   * The public key named by a signature's key id, and whose it is (fetched when unknown or stale):
   * the stored account when it was known, the actor's document when it was fetched.
   */
  async keyFor(
    keyId: string,
    refresh: boolean,
  ): Promise<{ pem: string; actorUri: string; doc?: RemoteActorDoc; actor?: ActorRow } | null> {
    if (!refresh) {
      const known = await this.repo.byKeyId(keyId);
      if (known?.public_key) return { pem: known.public_key, actorUri: known.uri, actor: known };
    }
    if (isLocalUri(this.fed, keyId)) return null;
    const { url, json } = await this.fed.client.getJson(keyId.replace(/#.*$/, ''));
    let actorDoc: unknown = json;
    // A key served on its own (`{id, owner, publicKeyPem}`): its owner is the actor.
    if (isObject(json) && !isObject(json.publicKey) && str(json.owner))
      actorDoc = (await this.fed.client.getJson(str(json.owner)!)).json;
    const doc = parseActor(actorDoc, isObject(json) && str(json.owner) ? str(json.owner)! : url);
    if (doc.keyId === keyId) return { pem: doc.publicKeyPem, actorUri: doc.uri, doc };
    // Another key of the actor's (an Ed25519 one, say): looked up in its document each time.
    const other = await additionalKeyPem(actorDoc, doc.uri, keyId);
    return other ? { pem: other, actorUri: doc.uri, doc } : null;
  }

  /** `user@host[:port]` → account, through the peer's WebFinger. */
  async resolveAcct(username: string, domain: string): Promise<ActorRow> {
    const known = await this.repo.byAcct(username, domain);
    if (known) return known;
    const resource = `acct:${username}@${domain}`;
    const endpoint = `${schemeFor(this.fed.policy, domain)}://${domain}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
    const { json } = await this.fed.client.getJson(endpoint, 'application/jrd+json, application/json');
    const links: unknown[] = isObject(json) && Array.isArray(json.links) ? json.links : [];
    const self = links.find(
      (link) => isObject(link) && link.rel === 'self' && /activity\+json|ld\+json/.test(str(link.type) ?? ''),
    );
    const href = isObject(self) ? str(self.href) : null;
    if (!href) throw new InvalidDocumentError(`WebFinger of ${resource} names no ActivityPub actor`);
    return this.resolve(href);
  }
}

/**
 * The row's picture fields for a peer's picture at `source`: the local copy while the source is
 * unchanged, else the peer's URL (a copy is made later, in the background).
 */
function picture(
  kind: 'avatar' | 'header',
  source: string | null,
  before: RemoteImages | undefined,
): Record<string, string | null> {
  const copy = before && source !== null && before[`${kind}_source`] === source && before[kind]?.startsWith('/system/');
  return copy
    ? { [kind]: before[kind], [`${kind}_static`]: before[`${kind}_static`] }
    : { [kind]: source, [`${kind}_static`]: source };
}
