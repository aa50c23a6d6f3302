/**
 * Filters v1 (/api/v1/filters), deprecated but still served by Mastodon 4.5 for older apps: a v1
 * filter is one keyword of a v2 filter (its id the keyword's), `irreversible` meaning the hide
 * action. Creating makes a v2 filter titled by the phrase; a keyword whose filter holds others
 * cannot be changed here, as Mastodon says. Mounted after /api/v1/filters/keywords/:id.
 */
import type { Context } from 'koa';
import { unprocessable } from '../../lib/errors.js';
import { arrayParam, boolParam, params, pathId, stringParam, type Params } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { FilterRow, KeywordRow } from './repo.js';
import type { FilterInput, FiltersService } from './service.js';

const SHARED_KEYWORDS =
  'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.';

function serializeV1(filter: FilterRow, keyword: KeywordRow): Record<string, unknown> {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: JSON.parse(filter.context) as string[],
    whole_word: Boolean(keyword.whole_word),
    expires_at: filter.expires_at,
    irreversible: filter.action === 'hide',
  };
}

/** The v2 filter input a v1 request stands for (only what it names). */
function v1Input(p: Params, keywordId?: string): FilterInput {
  const phrase = stringParam(p, 'phrase');
  const irreversible = boolParam(p, 'irreversible');
  const expires = stringParam(p, 'expires_in');
  const expiresIn = expires === undefined ? undefined : expires === '' ? null : Number(expires);
  if (typeof expiresIn === 'number' && (!Number.isFinite(expiresIn) || expiresIn <= 0))
    throw unprocessable('Validation failed: Expires in must be a positive number of seconds');
  const wholeWord = boolParam(p, 'whole_word');
  return {
    title: phrase,
    context: arrayParam(p, 'context'),
    expires_in: expiresIn,
    filter_action: irreversible === undefined ? undefined : irreversible ? 'hide' : 'warn',
    keywords_attributes:
      phrase === undefined && wholeWord === undefined
        ? []
        : [{ id: keywordId, keyword: phrase, whole_word: wholeWord ?? (keywordId ? undefined : true) }],
  };
}

export function filterV1Routes(routes: Routes, service: FiltersService): void {
  const R = { scopes: read('filters') };
  const W = { scopes: write('filters') };
  const find = async (ctx: Context, id: string) => {
    const keyword = await service.keyword(viewerId(ctx), id);
    return { keyword, ...(await service.get(viewerId(ctx), keyword.filter_id)) };
  };

  routes.get('/api/v1/filters', R, async (ctx) => {
    ctx.body = (await service.list(viewerId(ctx))).flatMap(({ filter, keywords }) =>
      keywords.map((keyword) => serializeV1(filter, keyword)),
    );
  });
  routes.get('/api/v1/filters/:id', R, async (ctx) => {
    const { keyword, filter } = await find(ctx, pathId(ctx));
    ctx.body = serializeV1(filter, keyword);
  });
  routes.post('/api/v1/filters', W, async (ctx) => {
    const input = v1Input(params(ctx));
    if (!input.title?.trim()) throw unprocessable("Validation failed: Phrase can't be blank");
    const filterId = await service.create(viewerId(ctx), input);
    const { filter, keywords } = await service.get(viewerId(ctx), filterId);
    ctx.body = serializeV1(filter, keywords[0]);
  });
  routes.put('/api/v1/filters/:id', W, async (ctx) => {
    const { keyword, keywords } = await find(ctx, pathId(ctx));
    if (keywords.length > 1) throw unprocessable(SHARED_KEYWORDS);
    await service.update(viewerId(ctx), keyword.filter_id, v1Input(params(ctx), keyword.id));
    const { filter, keyword: updated } = await find(ctx, keyword.id);
    ctx.body = serializeV1(filter, updated);
  });
  routes.delete('/api/v1/filters/:id', W, async (ctx) => {
    await service.removeKeyword(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });
}
