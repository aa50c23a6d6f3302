/**
 * /api/v1/admin/accounts (v1 filters: local, remote, by_domain, active, pending, disabled,
 * silenced, suspended, username, display_name, email, staff) and /api/v2/admin/accounts (origin,
 * status, permissions, …), one account, and the moderation actions. Owner only, admin scopes.
 */
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.js';
import { boolParam, params, pathId, stringParam, type Params } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import type { Routes } from '../http/routes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { AdminFilter, AdminRow } from './repo.js';
import { renderAdminAccounts } from './render.js';
import type { AdminAccountsService } from './service.js';

const READ = { scopes: ['admin:read', 'admin:read:accounts'], owner: true };
const WRITE = { scopes: ['admin:write', 'admin:write:accounts'], owner: true };
const V1_STATUSES = ['active', 'pending', 'disabled', 'silenced', 'suspended'] as const;

function v1Filter(p: Params): AdminFilter {
  const filter: AdminFilter = {
    byDomain: stringParam(p, 'by_domain'),
    username: stringParam(p, 'username'),
    displayName: stringParam(p, 'display_name'),
    email: stringParam(p, 'email'),
    staff: boolParam(p, 'staff'),
  };
  if (boolParam(p, 'local')) filter.origin = 'local';
  else if (boolParam(p, 'remote')) filter.origin = 'remote';
  for (const status of V1_STATUSES)
    if (boolParam(p, status) || (status === 'silenced' && boolParam(p, 'sandboxed'))) filter.status = status;
  return filter;
}

function v2Filter(p: Params): AdminFilter {
  const origin = stringParam(p, 'origin');
  const status = stringParam(p, 'status');
  const permissions = stringParam(p, 'permissions');
  if (origin !== undefined && !['local', 'remote'].includes(origin))
    throw new HttpError(400, `Invalid value for 'origin'`);
  if (status !== undefined && !(V1_STATUSES as readonly string[]).includes(status))
    throw new HttpError(400, `Invalid value for 'status'`);
  if (permissions !== undefined && permissions !== 'staff') throw new HttpError(400, `Invalid value for 'permissions'`);
  return {
    origin: origin as AdminFilter['origin'],
    status: status as AdminFilter['status'],
    staff: permissions === 'staff',
    byDomain: stringParam(p, 'by_domain'),
    username: stringParam(p, 'username'),
    displayName: stringParam(p, 'display_name'),
    email: stringParam(p, 'email'),
  };
}

export function adminRoutes(
  routes: Routes,
  service: AdminAccountsService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  const render = (rows: AdminRow[]) => renderAdminAccounts(renderer, rows);
  const list = (filterOf: (p: Params) => AdminFilter) => async (ctx: Context) => {
    const p = params(ctx);
    const page = pageQuery(p, 100, 200);
    const rows = await service.list(filterOf(p), page);
    ctx.body = await render(rows);
    if (rows.length)
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, [
          'limit',
          'local',
          'remote',
          'origin',
          'status',
          'by_domain',
          'username',
          'display_name',
          'email',
          'permissions',
          'staff',
          ...V1_STATUSES,
        ]),
        nextMaxId: rows[rows.length - 1].id,
        prevMinId: rows[0].id,
      });
  };
  routes.get('/api/v1/admin/accounts', READ, list(v1Filter));
  routes.get('/api/v2/admin/accounts', READ, list(v2Filter));
  routes.get('/api/v1/admin/accounts/:id', READ, async (ctx) => {
    ctx.body = (await render([await service.get(pathId(ctx))]))[0];
  });
  routes.post('/api/v1/admin/accounts/:id/approve', WRITE, async (ctx) => {
    ctx.body = (await render([await service.approve(pathId(ctx))]))[0];
  });
  routes.post('/api/v1/admin/accounts/:id/reject', WRITE, async (ctx) => {
    await service.reject(pathId(ctx));
    ctx.body = {};
  });
  routes.post('/api/v1/admin/accounts/:id/action', WRITE, async (ctx) => {
    await service.action(pathId(ctx), stringParam(params(ctx), 'type') ?? '');
    ctx.body = {};
  });
  for (const what of ['unsilence', 'unsuspend', 'enable'] as const) {
    routes.post(`/api/v1/admin/accounts/:id/${what}`, WRITE, async (ctx) => {
      ctx.body = (await render([await service.undo(pathId(ctx), what)]))[0];
    });
  }
}
