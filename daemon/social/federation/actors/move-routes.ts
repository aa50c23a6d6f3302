/**
 * Account migration for API clients. Mastodon does this through its web settings, with no REST
 * route; these two Nestbox routes do the same steps: `aliases` (on the new account) then
 * `migration` (on the old one). Body: `{"acct": "user@host"}`.
 */
import type Router from '@koa/router';
import { unprocessable } from '../../../lib/errors.js';
import { params, stringParam } from '../../http/params.js';
import { viewerId, Routes } from '../../http/routes.js';
import { write } from '../../oauth/scopes.js';
import type { FederationContext } from '../context.js';
import type { AccountMoves } from './moves.js';

export function moveRoutes(router: Router, fed: FederationContext, moves: AccountMoves): void {
  const routes = new Routes(router, fed.services.oauth.resolve, fed.services.media.storage.incoming);
  const acct = (ctx: Parameters<Parameters<Routes['post']>[2]>[0]) => {
    const value = stringParam(params(ctx), 'acct')?.trim();
    if (!value) throw unprocessable("Validation failed: Acct can't be blank");
    return value;
  };
  routes.post('/api/v1/accounts/aliases', { scopes: write('accounts') }, async (ctx) => {
    ctx.body = { also_known_as: [await moves.addAlias(viewerId(ctx), acct(ctx))] };
  });
  routes.post('/api/v1/accounts/migration', { scopes: write('accounts') }, async (ctx) => {
    ctx.body = { moved_to: await moves.move(viewerId(ctx), acct(ctx)) };
  });
}
