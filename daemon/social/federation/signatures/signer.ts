/**
 * Who signed a request: an RFC 9421 message signature (when Signature-Input is there) or a
 * draft-cavage Signature, checked against the signer's key (fetched and cached; fetched again once
 * when it fails, for rotation). Unsigned or wrong → 401. The inbox asks it of every POST; the note
 * endpoint of a signed GET (a follower's server fetching a private status).
 */
import type { Context } from 'koa';
import { HttpError } from '../../../http/errors.js';
import type { FederationContext } from '../context.js';
import type { RemoteActors } from '../actors/remote.js';
import type { RemoteActorDoc } from '../actors/parse.js';
import type { ActorRow } from '../actors/repo.js';
import { hostOf } from '../objects/ld.js';
import { readCavageSignature } from './verify.js';
import { readMessageSignature } from './rfc9421.js';
import { SignatureError, type InboundSignature } from './inbound.js';

export interface VerifiedSigner {
  uri: string;
  doc?: RemoteActorDoc;
  actor?: ActorRow;
}

export class RequestSigners {
  constructor(
    private readonly fed: FederationContext,
    private readonly actors: RemoteActors,
  ) {}

  /**
   * The verified signer: its actor URI, and its stored account when its key was known, or its
   * document when it was fetched just now. `body` is null for a GET.
   */
  async verify(ctx: Context, body: Buffer | null): Promise<VerifiedSigner> {
    let parsed: InboundSignature;
    try {
      parsed = await this.read(ctx, body);
    } catch (error) {
      if (error instanceof SignatureError) this.refuse(ctx, error.message);
      throw error;
    }
    const keyId = parsed.keyId;
    if (hostOf(keyId) === null) this.refuse(ctx, 'keyId is not a URL');
    for (const refresh of [false, true]) {
      let key;
      try {
        key = await this.actors.keyFor(keyId, refresh);
      } catch (error) {
        this.refuse(ctx, `could not fetch key ${keyId}: ${(error as Error).message}`);
      }
      if (!key) this.refuse(ctx, `unknown key ${keyId}`);
      if (await parsed.verify(key.pem)) return { uri: key.actorUri, doc: key.doc, actor: key.actor };
      if (key.doc) break; // a freshly fetched key that fails will not pass on a second fetch
    }
    this.refuse(ctx, `${parsed.scheme} signature does not verify with ${keyId}`);
  }

  /** The verified signer's account: as stored when its key was known, stored now when its document was fetched. */
  async signerAccount(signer: VerifiedSigner): Promise<ActorRow> {
    if (signer.actor) return signer.actor;
    return signer.doc ? this.actors.store(signer.doc) : this.actors.resolve(signer.uri);
  }

  private read(ctx: Context, body: Buffer | null): Promise<InboundSignature> {
    const now = this.fed.social.now();
    if (ctx.get('signature-input')) return readMessageSignature(ctx.req, body, now, new URL(this.fed.baseUrl).protocol);
    return Promise.resolve(readCavageSignature(ctx.req, body, now));
  }

  private refuse(ctx: Context, reason: string): never {
    this.fed.log.info('refused a signed request', { method: ctx.method, path: ctx.path, reason: reason.slice(0, 300) });
    throw new HttpError(401, 'Request not signed or signature invalid');
  }

  /**
   * The account that signed a GET, stored as the inbox stores senders; null when the request is
   * unsigned, its signature does not verify (as Mastodon without authorized fetch, the fetch is
   * then no one's), the signer is no account (an instance actor) or is suspended.
   */
  async account(ctx: Context): Promise<string | null> {
    if (!ctx.get('signature') && !ctx.get('signature-input')) return null;
    try {
      const actor = await this.signerAccount(await this.verify(ctx, null));
      return actor.suspended_at ? null : actor.id;
    } catch (error) {
      this.fed.log.info('signed fetch answered as to no one', {
        path: ctx.path,
        error: (error as Error).message.slice(0, 300),
      });
      return null;
    }
  }
}
