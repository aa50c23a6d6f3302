/**
 * A minimal `GET /api/v2/search` for this branch: resolve=true runs the federation resolver
 * (401 without a token, as the document says), and accounts are matched locally. Issue 7's full
 * search replaces this route and calls `Federation.resolve()` for its resolve path.
 */
import type Router from '@koa/router';
import { unauthorized } from '../../../http/errors.js';
import { serializeAccount } from '../../accounts/serialize.js';
import { boolParam, params, stringParam } from '../../http/params.js';
import { optionalViewerId, Routes } from '../../http/routes.js';
import { read } from '../../oauth/scopes.js';
import type { FederationContext } from '../context.js';
import type { Resolver } from './resolver.js';

export function searchRoute(router: Router, fed: FederationContext, resolver: Resolver): void {
  const routes = new Routes(router, fed.services.oauth.resolve);
  routes.get('/api/v2/search', { ifToken: read('search') }, async (ctx) => {
    const p = params(ctx);
    const q = (stringParam(p, 'q') ?? '').trim();
    const viewer = optionalViewerId(ctx);
    const resolve = boolParam(p, 'resolve') ?? false;
    if (resolve && !viewer) throw unauthorized('Search queries that resolve remote resources require authentication');
    const found = resolve ? await resolver.resolve(q) : { accountIds: [], statusIds: [] };
    const accountRows = found.accountIds.length ? await fed.services.accounts.repo.byIds(found.accountIds)
      : q ? await fed.services.accounts.search(q, 5, 0) : [];
    const statuses = await fed.services.renderer.render(found.statusIds, viewer);
    const type = stringParam(p, 'type');
    ctx.body = {
      accounts: !type || type === 'accounts' ? accountRows.map((row) => serializeAccount(row, fed.baseUrl)) : [],
      statuses: !type || type === 'statuses' ? found.statusIds.map((id) => statuses.get(id)).filter(Boolean) : [],
      hashtags: [],
    };
  });
}
