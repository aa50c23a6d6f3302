/**
 * /api/v1/lists (and their accounts), /api/v1/accounts/:id/lists and the list timeline
 * /api/v1/timelines/list/:list_id, Mastodon's scopes: read:lists and write:lists.
 */
import { arrayParam, boolParam, params, pathId, stringParam } from '../http/params.js';
import { pageQuery } from '../http/pagination.js';
import { sendAccountPage } from '../http/lists.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { sendStatusPage } from '../timelines/routes.js';
import type { TimelinesService } from '../timelines/service.js';
import { serializeList } from './serialize.js';
import type { ListInput, ListsService } from './service.js';

export interface ListRouteDeps {
  service: ListsService;
  timelines: TimelinesService;
  renderer: StatusRenderer;
  baseUrl: string;
}

export function listRoutes(routes: Routes, deps: ListRouteDeps): void {
  const { service, renderer, baseUrl } = deps;
  const input = (p: Record<string, unknown>): ListInput => ({
    title: stringParam(p, 'title'),
    replies_policy: stringParam(p, 'replies_policy'),
    exclusive: boolParam(p, 'exclusive'),
  });

  routes.get('/api/v1/lists', { scopes: read('lists') }, async (ctx) => {
    ctx.body = (await service.ofOwner(viewerId(ctx))).map(serializeList);
  });

  routes.post('/api/v1/lists', { scopes: write('lists') }, async (ctx) => {
    ctx.body = serializeList(await service.create(viewerId(ctx), input(params(ctx))));
  });

  routes.get('/api/v1/lists/:id', { scopes: read('lists') }, async (ctx) => {
    ctx.body = serializeList(await service.get(viewerId(ctx), pathId(ctx)));
  });

  routes.put('/api/v1/lists/:id', { scopes: write('lists') }, async (ctx) => {
    ctx.body = serializeList(await service.update(viewerId(ctx), pathId(ctx), input(params(ctx))));
  });

  routes.delete('/api/v1/lists/:id', { scopes: write('lists') }, async (ctx) => {
    await service.remove(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });

  routes.get('/api/v1/lists/:id/accounts', { scopes: read('lists') }, async (ctx) => {
    const list = await service.get(viewerId(ctx), pathId(ctx));
    const p = params(ctx);
    const page = pageQuery(p, 40, 80);
    await sendAccountPage(ctx, renderer, baseUrl, p, page, await service.members(list.id, page));
  });

  routes.post('/api/v1/lists/:id/accounts', { scopes: write('lists') }, async (ctx) => {
    await service.addMembers(viewerId(ctx), pathId(ctx), arrayParam(params(ctx), 'account_ids') ?? []);
    ctx.body = {};
  });

  routes.delete('/api/v1/lists/:id/accounts', { scopes: write('lists') }, async (ctx) => {
    await service.removeMembers(viewerId(ctx), pathId(ctx), arrayParam(params(ctx), 'account_ids') ?? []);
    ctx.body = {};
  });

  routes.get('/api/v1/accounts/:id/lists', { scopes: read('lists') }, async (ctx) => {
    ctx.body = (await service.holding(viewerId(ctx), pathId(ctx))).map(serializeList);
  });

  routes.get('/api/v1/timelines/list/:list_id', { scopes: read('lists') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const list = await service.get(viewer, pathId(ctx, 'list_id'));
    const p = params(ctx);
    await sendStatusPage(
      ctx,
      { renderer, baseUrl },
      p,
      await deps.timelines.list(viewer, list.id, pageQuery(p, 20, 40)),
      ['limit'],
      viewer,
    );
  });
}
