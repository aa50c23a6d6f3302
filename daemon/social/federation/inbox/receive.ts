/**
 * POST to an inbox: the body read raw (for its digest) within a size limit, the signature checked
 * against the sender's key (fetched and cached; fetched again once when it fails, for rotation),
 * the activity's actor matched to the key's owner, and only then the activity handled.
 * Unsigned or wrong → 401 and nothing stored; bad JSON-LD → 400 and a log line.
 */
import type { Context } from 'koa';
import { HttpError } from '../../../http/errors.js';
import { requireIdentityEncoding } from '../../../http/body.js';
import type { FederationContext } from '../context.js';
import type { RemoteActors } from '../actors/remote.js';
import type { RequestSigners } from '../signatures/signer.js';
import { idOf, InvalidDocumentError, isObject, str } from '../objects/ld.js';
import type { DeliveryQueue } from '../delivery/queue.js';
import type { InboxHandlers } from './handlers.js';
import { ForbiddenAddressError } from '../net/address-policy.js';
import { isFetchFailure } from '../net/fetch-failure.js';

export const INBOX_BODY_LIMIT = 1024 * 1024;

export class InboxReceiver {
  constructor(
    private readonly fed: FederationContext,
    private readonly actors: RemoteActors,
    private readonly handlers: InboxHandlers,
    private readonly queue: DeliveryQueue,
    private readonly signers: RequestSigners,
  ) {}

  async receive(ctx: Context): Promise<void> {
    const body = await readBody(ctx);
    const signer = await this.signers.verify(ctx, body);
    let activity: unknown;
    try {
      activity = JSON.parse(body.toString('utf8'));
    } catch {
      this.reject(ctx, 'body is not JSON', signer.uri);
    }
    if (!isObject(activity) || !str(activity.type)) this.reject(ctx, 'activity has no type', signer.uri);
    const actorUri = idOf(activity.actor);
    if (actorUri !== signer.uri) {
      this.fed.log.warn('inbox refused an activity whose actor is not the signer', {
        actor: actorUri?.slice(0, 300),
        signer: signer.uri,
      });
      throw new HttpError(401, 'Activity actor does not match the signature');
    }
    // Verified: only now is anything stored (the sender's account first).
    const actor = await this.signers.signerAccount(signer);
    if (actor.suspended_at) throw new HttpError(403, 'Account is suspended');
    if (actor.domain) await this.queue.markAvailable(actor.domain);
    try {
      const handled = await this.handlers.handle(activity, actor);
      this.fed.log.debug('inbox activity', { type: activity.type, actor: actor.uri, handled });
    } catch (error) {
      if (error instanceof InvalidDocumentError || error instanceof ForbiddenAddressError)
        this.reject(ctx, error.message, actor.uri);
      if (!isFetchFailure(error)) throw error;
      // A referenced object could not be fetched: taken and dropped, as Mastodon does.
      this.fed.log.warn('inbox could not fetch what an activity refers to', {
        type: activity.type,
        actor: actor.uri,
        error: (error as Error).message,
      });
    }
    ctx.status = 202;
    ctx.body = '';
  }

  private reject(ctx: Context, reason: string, from: string): never {
    this.fed.log.warn('inbox rejected a malformed activity', { reason: reason.slice(0, 300), from, path: ctx.path });
    throw new HttpError(400, `Invalid activity: ${reason.slice(0, 200)}`);
  }
}

async function readBody(ctx: Context): Promise<Buffer> {
  // The signature's digest is over the bytes as sent; peers do not compress inbox deliveries.
  requireIdentityEncoding(ctx);
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > INBOX_BODY_LIMIT) throw new HttpError(413, 'Payload too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > INBOX_BODY_LIMIT) throw new HttpError(413, 'Payload too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
