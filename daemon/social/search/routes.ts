/** GET /api/v2/search (open; a sent token needs read:search), and the removed v1 search (404). */
import { notFound } from '../../lib/errors.js';
import { boolParam, idParam, params, requireString, stringParam } from '../http/params.js';
import { limitParam, offsetParam } from '../http/pagination.js';
import { optionalViewerId, type Routes } from '../http/routes.js';
import { read } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { SearchService } from './service.js';
import { serializeTag } from '../tags/serialize.js';

export function searchRoutes(routes: Routes, service: SearchService, renderer: StatusRenderer, baseUrl: string, now: () => number): void {
  routes.get('/api/v2/search', { ifToken: read('search') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    const p = params(ctx);
    const result = await service.search(viewer, {
      q: requireString(p, 'q'), type: stringParam(p, 'type') || undefined, limit: limitParam(p, 20, 40),
      offset: offsetParam(p),
      minId: idParam(p, 'min_id'), maxId: idParam(p, 'max_id'), accountId: idParam(p, 'account_id'),
      resolve: boolParam(p, 'resolve') ?? false, excludeUnreviewed: boolParam(p, 'exclude_unreviewed') ?? false,
    });
    const [accounts, statuses, hashtags] = await Promise.all([
      renderer.accountsById(result.accountIds),
      renderer.render(result.statusIds, viewer),
      service.tags.followedAmong(viewer, result.tags.map((tag) => tag.id)).then((followed) => Promise.all(result.tags.map(async (tag) =>
        serializeTag(tag, baseUrl, await service.tags.history(tag.id, now()), now(), followed.has(tag.id))))),
    ]);
    ctx.body = {
      accounts: result.accountIds.map((id) => accounts.get(id)).filter(Boolean),
      statuses: result.statusIds.map((id) => statuses.get(id)).filter(Boolean),
      hashtags,
    };
  });

  routes.get(['/api/v1/search'], 'open', () => { throw notFound(); });
}
