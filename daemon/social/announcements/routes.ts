/** /api/v1/announcements (with_dismissed), dismiss, and reactions (PUT/DELETE …/reactions/:name). */
import { boolParam, params, pathId, pathParam } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { write } from '../oauth/scopes.js';
import type { AnnouncementsService } from './service.js';

export function announcementRoutes(routes: Routes, service: AnnouncementsService): void {
  routes.get('/api/v1/announcements', { scopes: ['read'] }, async (ctx) => {
    const viewer = viewerId(ctx);
    const rows = await service.list(viewer, boolParam(params(ctx), 'with_dismissed') ?? false);
    const reactions = await service.reactions(
      viewer,
      rows.map((row) => row.id),
    );
    ctx.body = await Promise.all(
      rows.map(async (row) => ({
        id: row.id,
        content: row.content,
        starts_at: row.starts_at,
        ends_at: row.ends_at,
        all_day: Boolean(row.all_day),
        published_at: row.published_at,
        updated_at: row.updated_at,
        read: Boolean(row.read),
        mentions: [],
        statuses: [],
        tags: [],
        emojis: [],
        reactions: await Promise.all(
          reactions
            .filter((r) => r.announcement_id === row.id)
            .map(async (r) => {
              const custom = await service.customEmoji(r.name);
              return {
                name: r.name,
                count: r.count,
                me: Boolean(r.me),
                ...(custom ? { url: custom.image_url, static_url: custom.static_url } : {}),
              };
            }),
        ),
      })),
    );
  });

  routes.post('/api/v1/announcements/:id/dismiss', { scopes: write('accounts') }, async (ctx) => {
    await service.dismiss(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });
  routes.put('/api/v1/announcements/:id/reactions/:name', { scopes: write('favourites') }, async (ctx) => {
    await service.react(viewerId(ctx), pathId(ctx), pathParam(ctx, 'name'));
    ctx.body = {};
  });
  routes.delete('/api/v1/announcements/:id/reactions/:name', { scopes: write('favourites') }, async (ctx) => {
    await service.unreact(viewerId(ctx), pathId(ctx), pathParam(ctx, 'name'));
    ctx.body = {};
  });
}
