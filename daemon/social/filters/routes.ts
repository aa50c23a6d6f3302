/**
 * Filters v2: /api/v2/filters (+ /:id), a filter's keywords (/api/v2/filters/:filter_id/keywords),
 * and one keyword at Mastodon's path /api/v2/filters/keywords/:id with the aliases
 * /api/v2/filter_keywords/:id and /api/v1/filters/keywords/:id.
 */
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.js';
import { arrayParam, boolParam, params, pathId, stringParam, type Params } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import { serializeFilter, serializeKeyword } from './serialize.js';
import type { FilterInput, FiltersService, KeywordAttribute } from './service.js';

const KEYWORD_PATHS = ['/api/v2/filters/keywords/:id', '/api/v2/filter_keywords/:id', '/api/v1/filters/keywords/:id'];

function keywordAttributes(p: Params): KeywordAttribute[] | undefined {
  const raw = p.keywords_attributes ?? p['keywords_attributes[]'];
  if (raw === undefined || raw === null) return undefined;
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' ? Object.values(raw) : null;
  if (!list) throw new HttpError(400, "Invalid value for 'keywords_attributes'");
  return list.map((item) => {
    if (!item || typeof item !== 'object') throw new HttpError(400, "Invalid value for 'keywords_attributes'");
    const entry = item as Params;
    return {
      id: stringParam(entry, 'id'),
      keyword: stringParam(entry, 'keyword'),
      whole_word: boolParam(entry, 'whole_word'),
      _destroy: boolParam(entry, '_destroy'),
    };
  });
}

function filterInput(p: Params): FilterInput {
  const expires = stringParam(p, 'expires_in');
  const expiresIn = expires === undefined ? undefined : expires === '' ? null : Number(expires);
  if (typeof expiresIn === 'number' && (!Number.isFinite(expiresIn) || expiresIn <= 0))
    throw new HttpError(422, 'Validation failed: Expires in must be a positive number of seconds');
  return {
    title: stringParam(p, 'title'),
    context: arrayParam(p, 'context'),
    filter_action: stringParam(p, 'filter_action'),
    expires_in: expiresIn,
    keywords_attributes: keywordAttributes(p),
  };
}

function keywordInput(p: Params): KeywordAttribute {
  return { keyword: stringParam(p, 'keyword'), whole_word: boolParam(p, 'whole_word') };
}

export function filterRoutes(routes: Routes, service: FiltersService): void {
  const R = { scopes: read('filters') };
  const W = { scopes: write('filters') };
  const show = async (ctx: Context, id: string) => {
    const { filter, keywords } = await service.get(viewerId(ctx), id);
    ctx.body = serializeFilter(filter, keywords);
  };

  // Keyword paths first: "/api/v2/filters/keywords/:id" must not be read as a filter id.
  routes.get(KEYWORD_PATHS, R, async (ctx) => {
    ctx.body = serializeKeyword(await service.keyword(viewerId(ctx), pathId(ctx)));
  });
  routes.put(KEYWORD_PATHS, W, async (ctx) => {
    ctx.body = serializeKeyword(await service.updateKeyword(viewerId(ctx), pathId(ctx), keywordInput(params(ctx))));
  });
  routes.delete(KEYWORD_PATHS, W, async (ctx) => {
    await service.removeKeyword(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });

  routes.get('/api/v2/filters', R, async (ctx) => {
    ctx.body = (await service.list(viewerId(ctx))).map(({ filter, keywords }) => serializeFilter(filter, keywords));
  });
  routes.post('/api/v2/filters', W, async (ctx) => {
    const id = await service.create(viewerId(ctx), filterInput(params(ctx)));
    await show(ctx, id);
  });
  routes.get('/api/v2/filters/:id', R, (ctx) => show(ctx, pathId(ctx)));
  routes.put('/api/v2/filters/:id', W, async (ctx) => {
    const id = pathId(ctx);
    await service.update(viewerId(ctx), id, filterInput(params(ctx)));
    await show(ctx, id);
  });
  routes.delete('/api/v2/filters/:id', W, async (ctx) => {
    await service.remove(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });

  routes.get('/api/v2/filters/:filter_id/keywords', R, async (ctx) => {
    ctx.body = (await service.get(viewerId(ctx), pathId(ctx, 'filter_id'))).keywords.map(serializeKeyword);
  });
  routes.post('/api/v2/filters/:filter_id/keywords', W, async (ctx) => {
    const viewer = viewerId(ctx);
    const id = await service.addKeyword(viewer, pathId(ctx, 'filter_id'), keywordInput(params(ctx)));
    ctx.body = serializeKeyword(await service.keyword(viewer, id));
  });
}
