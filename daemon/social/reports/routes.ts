/** POST /api/v1/reports (write:reports), answered with the Report and the reports rate-limit headers. */
import { arrayParam, boolParam, idParam, params, stringParam } from '../http/params.js';
import { viewerId, type Routes } from '../http/routes.js';
import { write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { reportFields } from './serialize.js';
import type { ReportsService } from './service.js';

export function reportRoutes(routes: Routes, service: ReportsService, renderer: StatusRenderer): void {
  routes.post('/api/v1/reports', { scopes: write('reports') }, async (ctx) => {
    const p = params(ctx);
    const { row, statusIds, headers } = await service.create(viewerId(ctx), {
      accountId: idParam(p, 'account_id'),
      statusIds: arrayParam(p, 'status_ids') ?? [],
      comment: stringParam(p, 'comment'),
      forward: boolParam(p, 'forward') ?? false,
      forwardToDomains: arrayParam(p, 'forward_to_domains') ?? [],
      category: stringParam(p, 'category') || undefined,
      ruleIds: arrayParam(p, 'rule_ids') ?? [],
    });
    const target = (await renderer.accountsById([row.target_account_id])).get(row.target_account_id);
    ctx.set(headers);
    ctx.body = {
      ...reportFields(row),
      status_ids: statusIds.length ? statusIds : null,
      rule_ids: (JSON.parse(row.rule_ids) as number[]).map(String).length
        ? (JSON.parse(row.rule_ids) as number[]).map(String)
        : null,
      target_account: target,
    };
  });
}
