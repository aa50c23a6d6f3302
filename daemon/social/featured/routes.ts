/**
 * What accounts feature on their profiles: /api/v1/featured_tags (with suggestions from the
 * hashtags one used), an account's featured tags, and endorsed accounts (endorse, unendorse,
 * /api/v1/endorsements and an account's).
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import { params, pathId, stringParam } from '../http/params.js';
import { pageQuery } from '../http/pagination.js';
import { sendAccountPage } from '../http/lists.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { RelationshipsService } from '../relationships/service.js';
import { serializeRelationship } from '../relationships/serialize.js';
import type { TagsRepo } from '../tags/repo.js';
import { hashtagNames } from '../tags/parse.js';
import { serializeTag } from '../tags/serialize.js';
import type { FeaturedRepo } from './repo.js';
import { endorse, tooManyFeatured } from './service.js';
import { serializeFeaturedTag } from './serialize.js';

export interface FeaturedDeps {
  repo: FeaturedRepo;
  tags: TagsRepo;
  renderer: StatusRenderer;
  relationships: RelationshipsService;
  baseUrl: string;
  now: () => number;
}

export function featuredRoutes(routes: Routes, deps: FeaturedDeps): void {
  const { repo, renderer, baseUrl } = deps;
  const accountUrl = async (accountId: string) => {
    const account = (await renderer.accountsById([accountId])).get(accountId);
    if (!account) throw notFound();
    return account.url as string;
  };
  const featuredOf = async (accountId: string) => {
    const url = await accountUrl(accountId);
    return (await repo.tags(accountId)).map((row) => serializeFeaturedTag(row, url));
  };

  routes.get('/api/v1/featured_tags', { scopes: read('accounts') }, async (ctx) => { ctx.body = await featuredOf(viewerId(ctx)); });
  routes.get('/api/v1/accounts/:id/featured_tags', { ifToken: read('accounts') }, async (ctx) => { ctx.body = await featuredOf(pathId(ctx)); });

  routes.post('/api/v1/featured_tags', { scopes: write('accounts') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const [name] = hashtagNames([stringParam(params(ctx), 'name') ?? '']);
    if (!name) throw unprocessable('Validation failed: Tag is invalid');
    const tag = await deps.tags.ensure(name);
    if (!(await repo.feature(viewer, tag.id))) throw tooManyFeatured();
    const row = (await repo.tags(viewer)).find((featured) => featured.name.toLowerCase() === tag.name.toLowerCase())!;
    ctx.body = serializeFeaturedTag(row, await accountUrl(viewer));
  });

  routes.delete('/api/v1/featured_tags/:id', { scopes: write('accounts') }, async (ctx) => {
    if (!(await repo.unfeatureById(viewerId(ctx), pathId(ctx)))) throw notFound();
    ctx.body = {};
  });

  routes.get('/api/v1/featured_tags/suggestions', { scopes: read('accounts') }, async (ctx) => {
    const now = deps.now();
    const suggested = await repo.suggestions(viewerId(ctx));
    const following = await deps.tags.followedAmong(viewerId(ctx), suggested.map((tag) => tag.id));
    ctx.body = await Promise.all(suggested.map(async (tag) =>
      serializeTag(tag, baseUrl, await deps.tags.history(tag.id, now), now, following.has(tag.id), false)));
  });

  for (const [action, on] of [['endorse', true], ['unendorse', false]] as const) {
    // Mastodon 4.4 names these `pin`/`unpin` too.
    for (const verb of on ? [action, 'pin'] : [action, 'unpin']) {
      routes.post(`/api/v1/accounts/:id/${verb}`, { scopes: write('accounts') }, async (ctx) => {
        const viewer = viewerId(ctx);
        const target = pathId(ctx);
        await deps.relationships.relationship(viewer, target);
        if (on) await endorse(repo, viewer, target);
        else await repo.unendorse(viewer, target);
        ctx.body = serializeRelationship(await deps.relationships.relationship(viewer, target));
      });
    }
  }

  routes.get('/api/v1/endorsements', { scopes: read('accounts') }, async (ctx) => {
    const p = params(ctx);
    const page = pageQuery(p, 40, 80);
    await sendAccountPage(ctx, renderer, baseUrl, p, page, await repo.endorsed(viewerId(ctx), page));
  });
  routes.get('/api/v1/accounts/:id/endorsements', { ifToken: read('accounts') }, async (ctx) => {
    const p = params(ctx);
    const page = pageQuery(p, 40, 80);
    await sendAccountPage(ctx, renderer, baseUrl, p, page, await repo.endorsed(pathId(ctx), page));
  });
}
