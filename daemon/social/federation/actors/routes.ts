/**
 * ActivityPub documents of local accounts and statuses: the actor, its collections (totals; the
 * featured collection with the pinned notes, the featured hashtags), and each status at its uri (and its url) as a Note,
 * to whoever may see it (an unsigned fetch as no one signed in, a signed one as its signer).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../../../lib/errors.js';
import { pathParam } from '../../http/params.js';
import type { FederationContext } from '../context.js';
import type { LocalActors } from './local.js';
import { NoteRenderer } from '../objects/note.js';
import { withContext } from '../objects/context.js';
import { ACTIVITY_JSON } from '../net/client.js';
import type { Json } from '../objects/ld.js';
import type { RequestSigners } from '../signatures/signer.js';

export function actorRoutes(router: Router, fed: FederationContext, local: LocalActors, signers: RequestSigners): void {
  const notes = new NoteRenderer(fed);

  const account = async (ctx: Context) => {
    const row = await local.byUsername(pathParam(ctx, 'username'));
    if (!row) throw notFound();
    return row;
  };
  // Every document with the context its terms need.
  const send = (ctx: Context, body: Json, status = 200) => {
    ctx.status = status;
    ctx.type = ACTIVITY_JSON;
    ctx.body = withContext(body);
  };

  router.get('/actor', async (ctx) => send(ctx, await fed.instanceActor.document()));

  for (const path of ['/users/:username', '/@:username']) {
    router.get(path, async (ctx) => send(ctx, await local.document(await account(ctx))));
  }

  const collection = (suffix: string, count: (accountId: string) => Promise<number>) => {
    router.get(`/users/:username/${suffix}`, async (ctx) => {
      const row = await account(ctx);
      send(ctx, {
        id: `${row.uri}/${suffix}`,
        type: 'OrderedCollection',
        totalItems: await count(row.id),
      });
    });
  };
  collection('followers', async (id) => (await fed.services.accounts.get(id)).followers_count);
  collection('following', async (id) => (await fed.services.accounts.get(id)).following_count);
  collection('outbox', async (id) => (await fed.services.accounts.get(id)).statuses_count);

  router.get('/users/:username/collections/featured', async (ctx) => {
    const row = await account(ctx);
    // As seen by no one signed in: the pinned statuses anyone may see.
    const pinned = await fed.services.statuses.ofAccount(
      row.id,
      null,
      { pinned: true, excludeReplies: false, excludeReblogs: true },
      { limit: 5 },
    );
    const items = [];
    for (const { id } of pinned) {
      const status = await fed.services.statuses.byId(id);
      const rendered = status ? await notes.render(status) : null;
      if (rendered) items.push(rendered.note);
    }
    send(ctx, {
      id: `${row.uri}/collections/featured`,
      type: 'OrderedCollection',
      totalItems: items.length,
      orderedItems: items,
    });
  });

  // The hashtags the account features on its profile, as Hashtag objects (Mastodon's featuredTags).
  const featured = fed.services.featured;
  router.get('/users/:username/collections/tags', async (ctx) => {
    const row = await account(ctx);
    const items = (await featured.tags(row.id)).map(({ name }) => ({
      type: 'Hashtag',
      href: `${fed.baseUrl}/tags/${encodeURIComponent(name.toLowerCase())}`,
      name: `#${name}`,
    }));
    send(ctx, {
      id: `${row.uri}/collections/tags`,
      type: 'Collection',
      totalItems: items.length,
      items,
    });
  });

  for (const path of ['/users/:username/statuses/:id', '/@:username/:id']) {
    router.get(path, async (ctx) => {
      const row = await account(ctx);
      const id = String(ctx.params.id);
      if (!/^\d{1,20}$/.test(id)) throw notFound();
      const status = await fed.services.statuses.byId(id);
      if (!status || status.account_id !== row.id || status.reblog_of_id) throw notFound();
      // Seen as by the account that signed the fetch (a follower's server fetching a private
      // status), or by no one signed in: what that one may not see is 404, as Mastodon answers.
      const viewer = await signers.account(ctx);
      if (!(await fed.services.statuses.visibility.among([status.id], viewer)).has(status.id)) throw notFound();
      if (status.deleted_at) return send(ctx, { id: status.uri, type: 'Tombstone' }, 410);
      send(ctx, (await notes.renderWithContext(status))!);
    });
  }
}
