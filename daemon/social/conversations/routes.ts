/** /api/v1/conversations: the direct-message list, marking one read, taking one off the list. */
import { params, pathId } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { ConversationsService } from './service.js';
import { renderConversations } from './render.js';

export function conversationRoutes(
  routes: Routes,
  conversations: ConversationsService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  routes.get('/api/v1/conversations', { scopes: read('statuses') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    const rows = await conversations.page(viewer, pageQuery(p, 20, 40));
    ctx.body = await renderConversations(renderer, viewer, rows);
    if (rows.length)
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, ['limit']),
        nextMaxId: rows[rows.length - 1].edge_id,
        prevMinId: rows[0].edge_id,
      });
  });

  routes.post('/api/v1/conversations/:id/read', { scopes: write('conversations') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const row = await conversations.markRead(viewer, pathId(ctx));
    ctx.body = row ? ((await renderConversations(renderer, viewer, [row]))[0] ?? {}) : {};
  });

  routes.delete('/api/v1/conversations/:id', { scopes: write('conversations') }, async (ctx) => {
    await conversations.remove(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });
}
