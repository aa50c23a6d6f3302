/** /api/v1 and /api/v2 notifications/policy, and /api/v1/notifications/requests. Mounted before /api/v1/notifications/:id. */
import type { Context } from 'koa';
import { boolParam, manyIds, params, pathId, stringParam } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { NotificationPolicyService } from './service.js';
import type { RequestRow } from './repo.js';
import { POLICY_FIELDS, type PolicyField } from './rules.js';
import { serializePolicy, serializePolicyV1, serializeRequest, V1_FIELDS } from './serialize.js';

const DEFAULT_LIMIT = 40;
/** Requests accepted or dismissed in one call (a page of them, and then some). */
const MAX_BULK = 200;

export function notificationPolicyRoutes(
  routes: Routes,
  service: NotificationPolicyService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  const readScope = { scopes: read('notifications') };
  const writeScope = { scopes: write('notifications') };

  const v2 = async (ctx: Context) => {
    ctx.body = serializePolicy(await service.policy(viewerId(ctx)));
  };
  const v1 = async (ctx: Context) => {
    ctx.body = serializePolicyV1(await service.policy(viewerId(ctx)));
  };
  routes.get('/api/v2/notifications/policy', readScope, v2);
  routes.get('/api/v1/notifications/policy', readScope, v1);
  for (const method of ['patch', 'put'] as const) {
    routes[method]('/api/v2/notifications/policy', writeScope, async (ctx) => {
      const p = params(ctx);
      const changes: Partial<Record<PolicyField, string>> = {};
      for (const field of POLICY_FIELDS) changes[field] = stringParam(p, field);
      await service.update(viewerId(ctx), changes);
      await v2(ctx);
    });
    routes[method]('/api/v1/notifications/policy', writeScope, async (ctx) => {
      const p = params(ctx);
      const changes: Partial<Record<PolicyField, string>> = {};
      for (const [v1Name, field] of Object.entries(V1_FIELDS)) {
        const value = boolParam(p, v1Name);
        if (value !== undefined) changes[field] = value ? 'filter' : 'accept';
      }
      await service.update(viewerId(ctx), changes);
      await v1(ctx);
    });
  }

  async function render(viewer: string, rows: RequestRow[]) {
    const statusIds = rows.map((row) => row.last_status_id).filter((id): id is string => id !== null);
    const { statuses, accounts } = await renderer.renderWithAccounts(
      statusIds,
      viewer,
      rows.map((row) => row.from_account_id),
    );
    return rows
      .filter((row) => accounts.has(row.from_account_id))
      .map((row) =>
        serializeRequest(
          row,
          accounts.get(row.from_account_id)!,
          row.last_status_id ? (statuses.get(row.last_status_id) ?? null) : null,
        ),
      );
  }

  routes.get('/api/v1/notifications/requests', readScope, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    const page = pageQuery(p, DEFAULT_LIMIT, DEFAULT_LIMIT * 2);
    const rows = await service.requests(viewer, page);
    ctx.body = await render(viewer, rows);
    if (rows.length) {
      setLink(ctx, {
        baseUrl,
        path: '/api/v1/notifications/requests',
        kept: keep(p, ['limit']),
        nextMaxId: rows.length === page.limit ? rows[rows.length - 1].id : null,
        prevMinId: rows[0].id,
      });
    }
  });
  // Accepting is done at once here, so what was accepted has always been merged.
  routes.get('/api/v1/notifications/requests/merged', readScope, (ctx) => {
    ctx.body = { merged: true };
  });
  routes.post('/api/v1/notifications/requests/accept', writeScope, async (ctx) => {
    await service.accept(viewerId(ctx), manyIds(params(ctx), MAX_BULK), false);
    ctx.body = {};
  });
  routes.post('/api/v1/notifications/requests/dismiss', writeScope, async (ctx) => {
    await service.dismiss(viewerId(ctx), manyIds(params(ctx), MAX_BULK), false);
    ctx.body = {};
  });
  routes.get('/api/v1/notifications/requests/:id', readScope, async (ctx) => {
    const viewer = viewerId(ctx);
    const [json] = await render(viewer, [await service.request(viewer, pathId(ctx))]);
    ctx.body = json ?? {};
  });
  routes.post('/api/v1/notifications/requests/:id/accept', writeScope, async (ctx) => {
    await service.accept(viewerId(ctx), [pathId(ctx)], true);
    ctx.body = {};
  });
  routes.post('/api/v1/notifications/requests/:id/dismiss', writeScope, async (ctx) => {
    await service.dismiss(viewerId(ctx), [pathId(ctx)], true);
    ctx.body = {};
  });
}
