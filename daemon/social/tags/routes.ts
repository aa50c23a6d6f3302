/**
 * Hashtags as apps show them: GET /api/v1/tags/:name (any valid name, used or not), following
 * and unfollowing one (its public posts then join the home feed), featuring one on one's profile,
 * and /api/v1/followed_tags.
 */
import type { Context } from 'koa';
import { notFound } from '../../lib/errors.js';
import { params } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import { hashtagNames } from './parse.js';
import type { TagRow, TagsRepo } from './repo.js';
import { serializeTag } from './serialize.js';
import { tooManyFeatured } from '../featured/service.js';
import type { FeaturedRepo } from '../featured/repo.js';

export function tagRoutes(routes: Routes, tags: TagsRepo, featured: FeaturedRepo, baseUrl: string, now: () => number): void {
  const nameOf = (ctx: Context): string => {
    // The router has decoded the path already: decoding again would turn a name with '%' into a 500.
    const [name] = hashtagNames([String(ctx.params.name ?? '')]);
    if (!name) throw notFound();
    return name;
  };
  /** The Tag with the viewer's following and featuring, looked up unless known. */
  const render = async (tag: Pick<TagRow, 'id' | 'name'>, viewer: string | null, known: { following?: boolean; featuring?: boolean } = {}) => {
    const saved = tag.id > 0 && viewer !== null;
    const following = known.following ?? (saved && (await tags.followedAmong(viewer, [tag.id])).has(tag.id));
    const featuring = known.featuring ?? (saved && (await featured.featuring(viewer!, [tag.id])).has(tag.id));
    return serializeTag(tag, baseUrl, tag.id > 0 ? await tags.history(tag.id, now()) : [], now(), following, featuring);
  };

  routes.get('/api/v1/tags/:name', 'open', async (ctx) => {
    const name = nameOf(ctx);
    // A name nobody used yet is still a hashtag (Mastodon answers it unsaved, with no history).
    const tag = (await tags.byNames([name]))[0] ?? { id: 0, name };
    ctx.body = await render(tag, optionalViewerId(ctx));
  });

  for (const [action, following] of [['follow', true], ['unfollow', false]] as const) {
    routes.post(`/api/v1/tags/:name/${action}`, { scopes: write('follows') }, async (ctx) => {
      const viewer = viewerId(ctx);
      const tag = await tags.ensure(nameOf(ctx));
      if (following) await tags.follow(viewer, tag.id);
      else await tags.unfollow(viewer, tag.id);
      ctx.body = await render(tag, viewer, { following });
    });
  }

  // Featuring a hashtag on one's profile (Mastodon 4.4), as POST /api/v1/featured_tags does.
  for (const [action, featuring] of [['feature', true], ['unfeature', false]] as const) {
    routes.post(`/api/v1/tags/:name/${action}`, { scopes: write('accounts') }, async (ctx) => {
      const viewer = viewerId(ctx);
      const tag = await tags.ensure(nameOf(ctx));
      if (!featuring) await featured.unfeatureTag(viewer, tag.id);
      else if (!(await featured.feature(viewer, tag.id))) throw tooManyFeatured();
      ctx.body = await render(tag, viewer, { featuring });
    });
  }

  routes.get('/api/v1/followed_tags', { scopes: read('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    const page = pageQuery(p, 100, 200);
    const rows = await tags.followed(viewer, page);
    const featuring = await featured.featuring(viewer, rows.map((tag) => tag.id));
    ctx.body = await Promise.all(rows.map((tag) => render(tag, viewer, { following: true, featuring: featuring.has(tag.id) })));
    if (rows.length) {
      setLink(ctx, { baseUrl, path: ctx.path, kept: keep(p, ['limit']), nextMaxId: rows.length === page.limit ? rows[rows.length - 1]!.edge_id : null, prevMinId: rows[0]!.edge_id });
    }
  });
}
