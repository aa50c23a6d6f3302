/** GET /api/v2/search (open; a sent token needs read:search), and the removed v1 search (404). */
import { notFound } from '../../lib/errors.js';
import { boolParam, idParam, params, requireString, stringParam } from '../http/params.js';
import { limitParam, offsetParam } from '../http/pagination.js';
import { optionalViewerId, type Routes } from '../http/routes.js';
import { read } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { SearchService } from './service.js';
import { serializeTagView } from '../tags/serialize.js';
import type { TagsService } from '../tags/service.js';

export function searchRoutes(
  routes: Routes,
  service: SearchService,
  tags: TagsService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  routes.get('/api/v2/search', { ifToken: read('search') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    const p = params(ctx);
    const result = await service.search(viewer, {
      q: requireString(p, 'q'),
      type: stringParam(p, 'type') || undefined,
      limit: limitParam(p, 20, 40),
      offset: offsetParam(p),
      minId: idParam(p, 'min_id'),
      maxId: idParam(p, 'max_id'),
      accountId: idParam(p, 'account_id'),
      resolve: boolParam(p, 'resolve') ?? false,
      excludeUnreviewed: boolParam(p, 'exclude_unreviewed') ?? false,
    });
    const [accounts, statuses, hashtags] = await Promise.all([
      renderer.accountsById(result.accountIds),
      renderer.render(result.statusIds, viewer),
      tags.views(result.tags, viewer).then((views) => views.map((view) => serializeTagView(view, baseUrl))),
    ]);
    ctx.body = {
      accounts: result.accountIds.map((id) => accounts.get(id)).filter(Boolean),
      statuses: result.statusIds.map((id) => statuses.get(id)).filter(Boolean),
      hashtags,
    };
  });

  routes.get(['/api/v1/search'], 'open', () => {
    throw notFound();
  });
}
