/**
 * /api/v1/admin/reports (Mastodon's admin API): the owner lists reports, made here or forwarded
 * by peers, opens one, and resolves or reopens it. Owner only, admin scopes.
 */
import type { Context } from 'koa';
import { renderAdminAccounts } from '../admin/render.js';
import type { AdminAccountsService } from '../admin/service.js';
import { boolParam, idParam, params, pathId } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { viewerId, type Routes } from '../http/routes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { reportFields } from './serialize.js';
import type { ReportsService, ReviewedReport } from './service.js';

const READ = { scopes: ['admin:read', 'admin:read:reports'], owner: true };
const WRITE = { scopes: ['admin:write', 'admin:write:reports'], owner: true };

export function adminReportRoutes(
  routes: Routes,
  reports: ReportsService,
  accounts: AdminAccountsService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  /**
   * Mastodon's Admin::Report. The cited statuses go through the one visibility rule for the owner
   * like every other path: one the owner may not see is left out (deleted ones are shown).
   */
  const render = async (ctx: Context, rows: ReviewedReport[]) => {
    const accountIds = [...new Set(rows.flatMap((row) => [row.account_id, row.target_account_id]))];
    const admins = await renderAdminAccounts(renderer, await accounts.many(accountIds));
    const byId = new Map(admins.map((admin) => [admin.id as string, admin]));
    const statuses = await renderer.render(
      rows.flatMap((row) => row.status_ids),
      viewerId(ctx),
      { includeDeleted: true },
    );
    return rows.map((row) => ({
      ...reportFields(row),
      updated_at: row.action_taken_at ?? row.created_at,
      account: byId.get(row.account_id),
      target_account: byId.get(row.target_account_id),
      assigned_account: null,
      action_taken_by_account: null,
      statuses: row.status_ids.flatMap((id) => statuses.get(id) ?? []),
      rules: row.rules,
    }));
  };

  routes.get('/api/v1/admin/reports', READ, async (ctx) => {
    const p = params(ctx);
    const rows = await reports.list(
      {
        resolved: boolParam(p, 'resolved') ?? false,
        accountId: idParam(p, 'account_id'),
        targetAccountId: idParam(p, 'target_account_id'),
      },
      pageQuery(p, 100, 200),
    );
    ctx.body = await render(ctx, rows);
    if (rows.length)
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, ['limit', 'resolved', 'account_id', 'target_account_id']),
        nextMaxId: rows[rows.length - 1].id,
        prevMinId: rows[0].id,
      });
  });
  routes.get('/api/v1/admin/reports/:id', READ, async (ctx) => {
    ctx.body = (await render(ctx, [await reports.get(pathId(ctx))]))[0];
  });
  for (const [action, resolved] of [
    ['resolve', true],
    ['reopen', false],
  ] as const) {
    routes.post(`/api/v1/admin/reports/:id/${action}`, WRITE, async (ctx) => {
      ctx.body = (await render(ctx, [await reports.setResolved(pathId(ctx), resolved)]))[0];
    });
  }
}
