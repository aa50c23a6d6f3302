/** POST /api/v1/reports. */
import { arrayParam, boolParam, params, stringParam } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { isValidId } from '../../store/ids.js';
import { notFound } from '../../http/errors.js';
import type { ReportsService, ReportRow } from './service.js';

export function reportRoutes(routes: Routes, service: ReportsService, renderer: StatusRenderer): void {
  routes.post('/api/v1/reports', { scopes: write('reports') }, async (ctx) => {
    const p = params(ctx);
    const accountId = stringParam(p, 'account_id');
    if (!isValidId(accountId)) throw notFound();
    const { report, headers } = await service.create(viewerId(ctx), {
      accountId,
      statusIds: (arrayParam(p, 'status_ids') ?? []).filter(isValidId),
      comment: stringParam(p, 'comment') ?? '',
      category: stringParam(p, 'category'),
      ruleIds: arrayParam(p, 'rule_ids') ?? [],
      forward: boolParam(p, 'forward') ?? false,
      forwardToDomains: arrayParam(p, 'forward_to_domains') ?? [],
    });
    ctx.set(headers);
    const account = (await renderer.accountsById([report.target_account_id])).get(report.target_account_id);
    ctx.body = serializeReport(report, account);
  });
}

function serializeReport(report: ReportRow, targetAccount: unknown): Record<string, unknown> {
  return {
    id: report.id,
    action_taken: report.action_taken_at !== null,
    action_taken_at: report.action_taken_at,
    category: report.category,
    comment: report.comment,
    forwarded: Boolean(report.forwarded),
    created_at: report.created_at,
    status_ids: JSON.parse(report.status_ids),
    rule_ids: JSON.parse(report.rule_ids),
    target_account: targetAccount,
  };
}
