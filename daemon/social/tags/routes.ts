/**
 * Hashtags as apps show them: GET /api/v1/tags/:name (any valid name, used or not), following
 * and unfollowing one (its public posts then join the home feed), and /api/v1/followed_tags.
 */
import type { Context } from 'koa';
import { notFound } from '../../http/errors.js';
import { params } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import { hashtagNames } from './parse.js';
import type { TagRow, TagsRepo } from './repo.js';
import { serializeTag } from './serialize.js';

export function tagRoutes(routes: Routes, tags: TagsRepo, baseUrl: string, now: () => number): void {
  const nameOf = (ctx: Context): string => {
    // The router has decoded the path already: decoding again would turn a name with '%' into a 500.
    const [name] = hashtagNames([String(ctx.params.name ?? '')]);
    if (!name) throw notFound();
    return name;
  };
  const render = async (tag: Pick<TagRow, 'id' | 'name'>, following: boolean) =>
    serializeTag(tag, baseUrl, tag.id > 0 ? await tags.history(tag.id, now()) : [], now(), following);

  routes.get('/api/v1/tags/:name', 'open', async (ctx) => {
    const name = nameOf(ctx);
    // A name nobody used yet is still a hashtag (Mastodon answers it unsaved, with no history).
    const tag = (await tags.byNames([name]))[0] ?? { id: 0, name };
    const following = tag.id > 0 && (await tags.followedAmong(optionalViewerId(ctx), [tag.id])).has(tag.id);
    ctx.body = await render(tag, following);
  });

  routes.post('/api/v1/tags/:name/follow', { scopes: write('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const tag = await tags.ensure(nameOf(ctx));
    await tags.follow(viewer, tag.id);
    ctx.body = await render(tag, true);
  });

  routes.post('/api/v1/tags/:name/unfollow', { scopes: write('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const tag = await tags.ensure(nameOf(ctx));
    await tags.unfollow(viewer, tag.id);
    ctx.body = await render(tag, false);
  });

  routes.get('/api/v1/followed_tags', { scopes: read('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    const page = pageQuery(p, 100, 200);
    const rows = await tags.followed(viewer, page);
    ctx.body = await Promise.all(rows.map((tag) => render(tag, true)));
    if (rows.length) {
      setLink(ctx, { baseUrl, path: ctx.path, kept: keep(p, ['limit']), nextMaxId: rows.length === page.limit ? rows[rows.length - 1]!.edge_id : null, prevMinId: rows[0]!.edge_id });
    }
  });
}
