/** /api/v1/directory and follow suggestions (/api/v1/suggestions, /api/v2/suggestions). */
import { boolParam, params, pathId, stringParam } from '../http/params.js';
import { limitParam, offsetParam } from '../http/pagination.js';
import { optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { DirectoryService } from './service.js';

const DEFAULT_LIMIT = 40;

export function directoryRoutes(routes: Routes, directory: DirectoryService, renderer: StatusRenderer): void {
  const inOrder = async (ids: string[]) => {
    const accounts = await renderer.accountsById(ids);
    return ids.map((id) => accounts.get(id)).filter(Boolean);
  };

  routes.get('/api/v1/directory', { ifToken: read('accounts') }, async (ctx) => {
    const p = params(ctx);
    const ids = await directory.directory(optionalViewerId(ctx), {
      order: stringParam(p, 'order'),
      local: boolParam(p, 'local'),
      offset: offsetParam(p),
      limit: limitParam(p, DEFAULT_LIMIT, DEFAULT_LIMIT * 2),
    });
    ctx.body = await inOrder(ids);
  });

  routes.get('/api/v1/suggestions', { scopes: read('accounts') }, async (ctx) => {
    const suggestions = await directory.suggestions(
      viewerId(ctx),
      limitParam(params(ctx), DEFAULT_LIMIT, DEFAULT_LIMIT * 2),
    );
    ctx.body = await inOrder(suggestions.map((s) => s.id));
  });

  routes.get('/api/v2/suggestions', { scopes: read('accounts') }, async (ctx) => {
    const suggestions = await directory.suggestions(
      viewerId(ctx),
      limitParam(params(ctx), DEFAULT_LIMIT, DEFAULT_LIMIT * 2),
    );
    const accounts = await renderer.accountsById(suggestions.map((s) => s.id));
    // `source` is the deprecated single reason Mastodon still sends beside `sources`.
    ctx.body = suggestions
      .filter((s) => accounts.has(s.id))
      .map((s) => ({
        source: s.source === 'friends_of_friends' ? 'past_interactions' : 'global',
        sources: [s.source],
        account: accounts.get(s.id),
      }));
  });

  routes.delete('/api/v1/suggestions/:id', { scopes: write('accounts') }, async (ctx) => {
    await directory.dismiss(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });
}
