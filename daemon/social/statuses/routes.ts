/** /api/v1/statuses and the actions on a status; favourites and bookmarks lists. */
import type { Context } from 'koa';
import { notFound, nullIfNotFound } from '../../lib/errors.js';
import { arrayParam, boolParam, manyIds, params, pathId, stringParam } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { authOf, optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { sendAccountPage } from '../http/lists.js';
import { read, write } from '../oauth/scopes.js';
import type { RelationshipsService } from '../relationships/service.js';
import type { NewStatus, StatusesService } from './service.js';
import type { StatusRenderer } from './serialize.js';
import { IdempotencyKeys } from './idempotency.js';
import { pollParam } from '../polls/params.js';

/** Posting with `scheduled_at`: kept for later and answered as a ScheduledStatus. */
export interface Scheduler {
  when(scheduledAt: string): Date | null;
  schedule(authorId: string, input: NewStatus, at: Date): Promise<Record<string, unknown>>;
}

export function statusRoutes(
  routes: Routes,
  service: StatusesService,
  renderer: StatusRenderer,
  relationships: RelationshipsService,
  baseUrl: string,
  scheduler: Scheduler,
): void {
  async function send(
    ctx: Context,
    id: string,
    viewer: string | null,
    options?: { includeDeleted?: boolean; withSource?: boolean },
  ) {
    const json = await renderer.renderOne(id, viewer, options);
    if (!json) throw notFound();
    ctx.body = json;
  }

  const idempotency = new IdempotencyKeys(Date.now);

  routes.post('/api/v1/statuses', { scopes: write('statuses') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const key = ctx.get('idempotency-key') || undefined;
    const earlier = idempotency.get(viewer, key);
    if (earlier) return send(ctx, earlier, viewer);
    const p = params(ctx);
    const input: NewStatus = {
      status: stringParam(p, 'status'),
      spoiler_text: stringParam(p, 'spoiler_text'),
      sensitive: boolParam(p, 'sensitive'),
      visibility: stringParam(p, 'visibility'),
      language: stringParam(p, 'language'),
      in_reply_to_id: stringParam(p, 'in_reply_to_id') || undefined,
      media_ids: arrayParam(p, 'media_ids'),
      poll: pollParam(p),
      appId: authOf(ctx).appId,
    };
    const scheduledAt = stringParam(p, 'scheduled_at');
    const later = scheduledAt ? scheduler.when(scheduledAt) : null;
    if (later) {
      ctx.body = await scheduler.schedule(viewer, input, later);
      return;
    }
    const { id, headers } = await service.create(viewer, input);
    idempotency.remember(viewer, key, id);
    ctx.set(headers);
    await send(ctx, id, viewer);
  });

  // Several statuses at once (Mastodon 4.3), in the order asked; ones the viewer may not see are left out.
  routes.get('/api/v1/statuses', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    const ids = manyIds(params(ctx));
    const visible = await Promise.all(ids.map((id) => service.visible(id, viewer).then(() => id, nullIfNotFound)));
    const rendered = await renderer.render(
      visible.filter((id): id is string => id !== null),
      viewer,
    );
    ctx.body = ids.map((id) => rendered.get(id)).filter(Boolean);
  });

  routes.get('/api/v1/statuses/:id', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    const row = await service.visible(pathId(ctx), viewer);
    await send(ctx, row.id, viewer);
  });

  routes.get('/api/v1/statuses/:id/context', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    const { ancestors, descendants } = await service.context(pathId(ctx), viewer);
    const rendered = await renderer.render([...ancestors, ...descendants], viewer);
    const inOrder = (ids: string[]) => ids.map((id) => rendered.get(id)).filter(Boolean);
    ctx.body = { ancestors: inOrder(ancestors), descendants: inOrder(descendants) };
  });

  // What an app puts in its editor to edit a status: the text as written, not the HTML.
  routes.get('/api/v1/statuses/:id/source', { scopes: read('statuses') }, async (ctx) => {
    const row = await service.visible(pathId(ctx), viewerId(ctx));
    ctx.body = { id: row.id, text: row.text, spoiler_text: row.spoiler_text };
  });

  routes.put('/api/v1/statuses/:id', { scopes: write('statuses') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    await service.edit(viewer, pathId(ctx), {
      status: stringParam(p, 'status'),
      spoiler_text: stringParam(p, 'spoiler_text'),
      sensitive: boolParam(p, 'sensitive'),
      language: stringParam(p, 'language'),
      poll: pollParam(p),
    });
    await send(ctx, pathId(ctx), viewer);
  });

  routes.delete('/api/v1/statuses/:id', { scopes: write('statuses') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const row = await service.delete(viewer, pathId(ctx));
    await send(ctx, row.id, viewer, { includeDeleted: true, withSource: true });
  });

  const action = (
    path: string,
    scope: string[],
    run: (viewer: string, id: string, ctx: Context) => Promise<string | void>,
  ) => {
    routes.post(path, { scopes: scope }, async (ctx) => {
      const viewer = viewerId(ctx);
      const id = pathId(ctx);
      const shown = (await run(viewer, id, ctx)) ?? id;
      await send(ctx, shown, viewer);
    });
  };
  action('/api/v1/statuses/:id/favourite', write('favourites'), async (v, id) => {
    await service.favourite(v, id);
  });
  action('/api/v1/statuses/:id/unfavourite', write('favourites'), (v, id) => service.unfavourite(v, id));
  action('/api/v1/statuses/:id/reblog', write('statuses'), async (v, id, ctx) => {
    const { id: reblogId, headers } = await service.reblog(v, id, stringParam(params(ctx), 'visibility') ?? 'public');
    ctx.set(headers);
    return reblogId;
  });
  action('/api/v1/statuses/:id/unreblog', write('statuses'), (v, id) => service.unreblog(v, id));
  action('/api/v1/statuses/:id/bookmark', write('bookmarks'), (v, id) => service.bookmark(v, id, true));
  action('/api/v1/statuses/:id/unbookmark', write('bookmarks'), (v, id) => service.bookmark(v, id, false));
  action('/api/v1/statuses/:id/pin', write('accounts'), (v, id) => service.pin(v, id, true));
  action('/api/v1/statuses/:id/unpin', write('accounts'), (v, id) => service.pin(v, id, false));
  action('/api/v1/statuses/:id/mute', write('mutes'), (v, id) => service.muteConversation(v, id, true));
  action('/api/v1/statuses/:id/unmute', write('mutes'), (v, id) => service.muteConversation(v, id, false));

  for (const [path, kind] of [
    ['/api/v1/statuses/:id/reblogged_by', 'reblogs'],
    ['/api/v1/statuses/:id/favourited_by', 'favourites'],
  ] as const) {
    routes.get(path, { ifToken: read('accounts') }, async (ctx) => {
      const viewer = optionalViewerId(ctx);
      const status = await service.visible(pathId(ctx), viewer);
      const p = params(ctx);
      const page = pageQuery(p, 40, 80);
      const rows = await service.actors(kind, status.id, page);
      const hidden = viewer
        ? await relationships.hiddenFrom(
            viewer,
            rows.map((row) => row.account_id),
          )
        : new Set<string>();
      await sendAccountPage(ctx, renderer, baseUrl, p, page, rows, hidden);
    });
  }

  for (const [path, table] of [
    ['/api/v1/favourites', 'favourites'],
    ['/api/v1/bookmarks', 'bookmarks'],
  ] as const) {
    routes.get(path, { scopes: read(table) }, async (ctx) => {
      const viewer = viewerId(ctx);
      const p = params(ctx);
      const page = pageQuery(p, 20, 40);
      const rows = await service.actedOn(table, viewer, page);
      // The renderer leaves out what the viewer may no longer see.
      const rendered = await renderer.render(
        rows.map((row) => row.status_id),
        viewer,
      );
      ctx.body = rows.map((row) => rendered.get(row.status_id)).filter(Boolean);
      if (rows.length)
        setLink(ctx, {
          baseUrl,
          path,
          kept: keep(p, ['limit']),
          nextMaxId: rows.length === page.limit ? rows[rows.length - 1].edge_id : null,
          prevMinId: rows[0].edge_id,
        });
    });
  }
}
