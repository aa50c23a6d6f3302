/** GET/POST /api/v1/markers. */
import { HttpError } from '../../http/errors.js';
import { isValidId } from '../../store/ids.js';
import { arrayParam, params } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import { TIMELINES, type MarkersService, type MarkerUpdate } from './service.js';
import type { MarkerRow } from './repo.js';

function serialize(rows: MarkerRow[]): Record<string, unknown> {
  return Object.fromEntries(
    rows.map((row) => [
      row.timeline,
      { last_read_id: row.last_read_id, version: row.version, updated_at: row.updated_at },
    ]),
  );
}

export function markerRoutes(routes: Routes, service: MarkersService): void {
  routes.get('/api/v1/markers', { scopes: read('statuses') }, async (ctx) => {
    ctx.body = serialize(await service.get(viewerId(ctx), arrayParam(params(ctx), 'timeline') ?? []));
  });

  routes.post('/api/v1/markers', { scopes: write('statuses') }, async (ctx) => {
    const p = params(ctx);
    const updates: MarkerUpdate[] = [];
    for (const timeline of TIMELINES) {
      const value =
        p[timeline] ??
        (p[`${timeline}[last_read_id]`] !== undefined ? { last_read_id: p[`${timeline}[last_read_id]`] } : undefined);
      if (value === undefined) continue;
      if (!value || typeof value !== 'object') throw new HttpError(400, `Invalid value for '${timeline}'`);
      const { last_read_id: raw, version } = value as { last_read_id?: unknown; version?: unknown };
      const lastReadId = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (!isValidId(lastReadId)) throw new HttpError(422, "Validation failed: Last read can't be blank");
      const expected = version === undefined || version === null || version === '' ? null : Number(version);
      if (expected !== null && !Number.isInteger(expected))
        throw new HttpError(400, `Invalid value for '${timeline}[version]'`);
      updates.push({ timeline, lastReadId, version: expected });
    }
    ctx.body = serialize(await service.save(viewerId(ctx), updates));
  });
}
