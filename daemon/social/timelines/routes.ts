/**
 * /api/v1/timelines/home, /public and /tag/:hashtag. Public and hashtag timelines are open
 * while public preview is on (NESTBOX_PUBLIC_PREVIEW); off, they need a user's token (401).
 */
import type { Context } from 'koa';
import { unauthorized } from '../../lib/errors.js';
import { arrayParam, boolParam, params, pathParam, type Params } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { type PageQuery } from '../store/paging.js';
import { optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { PublicOptions } from './repo.js';
import type { TimelinesService } from './service.js';

export interface TimelineDeps {
  timelines: TimelinesService;
  renderer: StatusRenderer;
  baseUrl: string;
  publicPreview: boolean;
}

/** Renders status ids in order (hidden or vanished ones left out) with the Link header. */
export async function sendStatusPage(
  ctx: Context,
  deps: Pick<TimelineDeps, 'renderer' | 'baseUrl'>,
  p: Params,
  ids: Array<{ id: string }>,
  kept: string[],
  viewer: string | null,
): Promise<void> {
  const rendered = await deps.renderer.render(
    ids.map((row) => row.id),
    viewer,
  );
  ctx.body = ids.map((row) => rendered.get(row.id)).filter(Boolean);
  if (ids.length)
    setLink(ctx, {
      baseUrl: deps.baseUrl,
      path: ctx.path,
      kept: keep(p, kept),
      nextMaxId: ids[ids.length - 1].id,
      prevMinId: ids[0].id,
    });
}

function publicOptions(p: Params): PublicOptions {
  return {
    local: boolParam(p, 'local') ?? false,
    remote: boolParam(p, 'remote') ?? false,
    onlyMedia: boolParam(p, 'only_media') ?? false,
  };
}

export function timelineRoutes(routes: Routes, deps: TimelineDeps): void {
  const page = (p: Params): PageQuery => pageQuery(p, 20, 40);
  const previewViewer = (ctx: Context): string | null => {
    const viewer = optionalViewerId(ctx);
    if (!deps.publicPreview && !viewer) {
      if (ctx.state.auth) viewerId(ctx);
      throw unauthorized('This method requires an authenticated user');
    }
    return viewer;
  };

  routes.get('/api/v1/timelines/home', { scopes: read('statuses') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    await sendStatusPage(ctx, deps, p, await deps.timelines.home(viewer, page(p)), ['limit'], viewer);
  });

  routes.get('/api/v1/timelines/public', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = previewViewer(ctx);
    const p = params(ctx);
    await sendStatusPage(
      ctx,
      deps,
      p,
      await deps.timelines.public(publicOptions(p), viewer, page(p)),
      ['limit', 'local', 'remote', 'only_media'],
      viewer,
    );
  });

  routes.get('/api/v1/timelines/tag/:hashtag', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = previewViewer(ctx);
    const p = params(ctx);
    const tags = await deps.timelines.tagsNamed({
      hashtag: pathParam(ctx, 'hashtag'),
      any: arrayParam(p, 'any') ?? [],
      all: arrayParam(p, 'all') ?? [],
      none: arrayParam(p, 'none') ?? [],
    });
    if (!tags) {
      ctx.body = [];
      return;
    }
    const ids = await deps.timelines.tag({ ...publicOptions(p), ...tags }, viewer, page(p));
    await sendStatusPage(ctx, deps, p, ids, ['limit', 'local', 'remote', 'only_media', 'any', 'all', 'none'], viewer);
  });
}
