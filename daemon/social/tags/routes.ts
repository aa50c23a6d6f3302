/**
 * Hashtags as apps show them: GET /api/v1/tags/:name (any valid name, used or not), following
 * and unfollowing one (its public posts then join the home feed), featuring one on one's profile,
 * and /api/v1/followed_tags.
 */
import type { Context } from 'koa';
import { notFound } from '../../lib/errors.js';
import { params, pathParam } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import { hashtagNames } from './parse.js';
import { serializeTagView } from './serialize.js';
import type { TagsService } from './service.js';

export function tagRoutes(routes: Routes, tags: TagsService, baseUrl: string): void {
  const nameOf = (ctx: Context): string => {
    // The router has decoded the path already: decoding again would turn a name with '%' into a 500.
    const [name] = hashtagNames([pathParam(ctx, 'name')]);
    if (!name) throw notFound();
    return name;
  };

  routes.get('/api/v1/tags/:name', 'open', async (ctx) => {
    ctx.body = serializeTagView(await tags.lookup(nameOf(ctx), optionalViewerId(ctx)), baseUrl);
  });

  for (const [action, following] of [
    ['follow', true],
    ['unfollow', false],
  ] as const) {
    routes.post(`/api/v1/tags/:name/${action}`, { scopes: write('follows') }, async (ctx) => {
      ctx.body = serializeTagView(await tags.setFollowing(viewerId(ctx), nameOf(ctx), following), baseUrl);
    });
  }

  // Featuring a hashtag on one's profile (Mastodon 4.4), as POST /api/v1/featured_tags does.
  for (const [action, featuring] of [
    ['feature', true],
    ['unfeature', false],
  ] as const) {
    routes.post(`/api/v1/tags/:name/${action}`, { scopes: write('accounts') }, async (ctx) => {
      ctx.body = serializeTagView(await tags.setFeaturing(viewerId(ctx), nameOf(ctx), featuring), baseUrl);
    });
  }

  routes.get('/api/v1/followed_tags', { scopes: read('follows') }, async (ctx) => {
    const p = params(ctx);
    const page = pageQuery(p, 100, 200);
    const views = await tags.followed(viewerId(ctx), page);
    ctx.body = views.map((view) => serializeTagView(view, baseUrl));
    if (views.length) {
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, ['limit']),
        nextMaxId: views.length === page.limit ? views[views.length - 1].edgeId : null,
        prevMinId: views[0].edgeId,
      });
    }
  });
}
