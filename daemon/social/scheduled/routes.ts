/** /api/v1/scheduled_statuses: list, read, move and cancel posts waiting for their time. */
import type { Context } from 'koa';
import { params, pathId, stringParam } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { MediaById } from '../media/serialize.js';
import type { ScheduledRow } from './repo.js';
import { serializeScheduled } from './serialize.js';
import type { ScheduledParams, ScheduledStatusesService } from './service.js';

export function scheduledRoutes(
  routes: Routes,
  service: ScheduledStatusesService,
  mediaById: MediaById,
  baseUrl: string,
): void {
  routes.get('/api/v1/scheduled_statuses', { scopes: read('statuses') }, async (ctx) => {
    const p = params(ctx);
    const rows = await service.page(viewerId(ctx), pageQuery(p, 20, 40));
    ctx.body = await Promise.all(rows.map((row) => renderScheduled(row, mediaById)));
    if (rows.length)
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, ['limit']),
        nextMaxId: rows[rows.length - 1].id,
        prevMinId: rows[0].id,
      });
  });

  routes.get('/api/v1/scheduled_statuses/:id', { scopes: read('statuses') }, async (ctx) => {
    ctx.body = await renderScheduled(await service.get(viewerId(ctx), pathId(ctx)), mediaById);
  });

  routes.put('/api/v1/scheduled_statuses/:id', { scopes: write('statuses') }, async (ctx) => {
    ctx.body = await renderScheduled(
      await service.reschedule(viewerId(ctx), pathId(ctx), stringParam(params(ctx), 'scheduled_at')),
      mediaById,
    );
  });

  routes.delete('/api/v1/scheduled_statuses/:id', { scopes: write('statuses') }, async (ctx: Context) => {
    await service.remove(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });
}

export async function renderScheduled(row: ScheduledRow, mediaById: MediaById): Promise<Record<string, unknown>> {
  const { media_ids: ids } = JSON.parse(row.params) as ScheduledParams;
  return serializeScheduled(row, ids ? await mediaById(ids) : []);
}
