/**
 * What accounts feature on their profiles: /api/v1/featured_tags (with suggestions from the
 * hashtags one used), an account's featured tags, and endorsed accounts (endorse, unendorse,
 * /api/v1/endorsements and an account's).
 */
import { notFound } from '../../lib/errors.js';
import { params, pathId, stringParam } from '../http/params.js';
import { pageQuery } from '../http/pagination.js';
import { sendAccountPage } from '../http/lists.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { serializeRelationship } from '../relationships/serialize.js';
import { serializeTagView } from '../tags/serialize.js';
import type { FeaturedService } from './service.js';
import { serializeFeaturedTag } from './serialize.js';

export function featuredRoutes(
  routes: Routes,
  featured: FeaturedService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  const accountUrl = async (accountId: string) => {
    const account = (await renderer.accountsById([accountId])).get(accountId);
    if (!account) throw notFound();
    return account.url;
  };
  const featuredOf = async (accountId: string) => {
    const url = await accountUrl(accountId);
    return (await featured.tags(accountId)).map((row) => serializeFeaturedTag(row, url));
  };

  routes.get('/api/v1/featured_tags', { scopes: read('accounts') }, async (ctx) => {
    ctx.body = await featuredOf(viewerId(ctx));
  });
  routes.get('/api/v1/accounts/:id/featured_tags', { ifToken: read('accounts') }, async (ctx) => {
    ctx.body = await featuredOf(pathId(ctx));
  });

  routes.post('/api/v1/featured_tags', { scopes: write('accounts') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const row = await featured.featureTag(viewer, stringParam(params(ctx), 'name') ?? '');
    ctx.body = serializeFeaturedTag(row, await accountUrl(viewer));
  });

  routes.delete('/api/v1/featured_tags/:id', { scopes: write('accounts') }, async (ctx) => {
    await featured.unfeature(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });

  routes.get('/api/v1/featured_tags/suggestions', { scopes: read('accounts') }, async (ctx) => {
    ctx.body = (await featured.suggestions(viewerId(ctx))).map((view) => serializeTagView(view, baseUrl));
  });

  for (const [action, on] of [
    ['endorse', true],
    ['unendorse', false],
  ] as const) {
    // Mastodon 4.4 names these `pin`/`unpin` too.
    for (const verb of on ? [action, 'pin'] : [action, 'unpin']) {
      routes.post(`/api/v1/accounts/:id/${verb}`, { scopes: write('accounts') }, async (ctx) => {
        ctx.body = serializeRelationship(await featured.setEndorsed(viewerId(ctx), pathId(ctx), on));
      });
    }
  }

  routes.get('/api/v1/endorsements', { scopes: read('accounts') }, async (ctx) => {
    const p = params(ctx);
    const page = pageQuery(p, 40, 80);
    await sendAccountPage(ctx, renderer, baseUrl, p, page, await featured.endorsed(viewerId(ctx), page));
  });
  routes.get('/api/v1/accounts/:id/endorsements', { ifToken: read('accounts') }, async (ctx) => {
    const p = params(ctx);
    const page = pageQuery(p, 40, 80);
    await sendAccountPage(ctx, renderer, baseUrl, p, page, await featured.endorsed(pathId(ctx), page));
  });
}
