/** /api/v1/notifications and /api/v2/notifications: parse, check scope, call the service, serialize. */
import type { Context } from 'koa';
import { badRequest, notFound } from '../../lib/errors.js';
import { arrayParam, boolParam, idParam, params, pathId, pathParam, stringParam, type Params } from '../http/params.js';
import { keep, limitParam, pageQuery, setLink } from '../http/pagination.js';
import { viewerId, type Routes } from '../http/routes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { read, write } from '../oauth/scopes.js';
import { DEFAULT_LIMIT, MAX_LIMIT, UNREAD_DEFAULT_CAP, UNREAD_MAX_CAP, type NotificationsService } from './service.js';
import { serializeGroupEnvelope, serializeNotification, serializePage, type Expand } from './serialize.js';
import { selectGroupedTypes, selectTypes } from './types.js';
import type { Filter } from './repo.js';
import type { ResponseCache } from '../render/response-cache.js';

const V1_KEPT = ['limit', 'account_id', 'types', 'exclude_types', 'include_filtered'];
const V2_KEPT = ['limit', 'include_filtered', 'types', 'exclude_types', 'grouped_types'];

/** The query parameters each cached read understands (bracket forms included); any other marks a cache buster. */
const CURSOR = ['max_id', 'since_id', 'min_id', 'access_token'];
const V1_PARAMS = new Set([...V1_KEPT, ...CURSOR]);
const V2_PARAMS = new Set([...V2_KEPT, ...CURSOR, 'expand_accounts']);

function filterOf(p: Params, withAccount: boolean): Filter {
  const fromAccountId = withAccount ? idParam(p, 'account_id') : undefined;
  return {
    types: selectTypes(arrayParam(p, 'types'), arrayParam(p, 'exclude_types')),
    includeFiltered: Boolean(boolParam(p, 'include_filtered')) || fromAccountId !== undefined,
    fromAccountId,
  };
}

function expandOf(p: Params): Expand {
  const value = stringParam(p, 'expand_accounts');
  if (value === undefined || value === 'full') return 'full';
  if (value === 'partial_avatars') return 'partial_avatars';
  throw badRequest(`Invalid value for 'expand_accounts': '${value}', allowed values are 'full' and 'partial_avatars'`);
}

function capOf(p: Params): number {
  return limitParam(p, UNREAD_DEFAULT_CAP, UNREAD_MAX_CAP);
}

export function notificationRoutes(
  routes: Routes,
  service: NotificationsService,
  renderer: StatusRenderer,
  baseUrl: string,
  cache: ResponseCache,
): void {
  /**
   * The viewer's reads, cached while the database is unchanged (key: viewer, path and query).
   * Older pages (max_id) are read once while scrolling: only first pages and counts are kept. A
   * query with a parameter the endpoint does not know differs per request (a cache buster): its
   * answer would never be asked for again, so it is not kept.
   */
  const cached = (known: ReadonlySet<string>) => (ctx: Context, render: () => Promise<void>) =>
    ctx.query.max_id !== undefined || !onlyKnownParams(ctx, known)
      ? render()
      : cache.serve(ctx, `${viewerId(ctx)} ${ctx.path}?${ctx.querystring}`, ['Link'], render);
  const cachedV1 = cached(V1_PARAMS);
  const cachedV2 = cached(V2_PARAMS);
  const readScope = { scopes: read('notifications') };
  const writeScope = { scopes: write('notifications') };

  async function hydrate(viewer: string, accountIds: string[], statusIds: string[]) {
    return renderer.renderWithAccounts(statusIds, viewer, accountIds);
  }

  // ── v1 ──
  routes.get('/api/v1/notifications', readScope, (ctx) =>
    cachedV1(ctx, async () => {
      const viewer = viewerId(ctx);
      const p = params(ctx);
      const cursor = pageQuery(p, DEFAULT_LIMIT, MAX_LIMIT);
      const rows = await service.list(viewer, filterOf(p, true), cursor);
      const { accounts, statuses } = await hydrate(
        viewer,
        rows.map((r) => r.from_account_id),
        rows.map((r) => r.status_id).filter((id): id is string => id !== null),
      );
      ctx.body = rows.map((row) => serializeNotification(row, accounts, statuses)).filter(Boolean);
      if (rows.length)
        setLink(ctx, {
          baseUrl,
          path: '/api/v1/notifications',
          kept: keep(p, V1_KEPT),
          nextMaxId: rows[rows.length - 1].id,
          prevMinId: rows[0].id,
        });
    }),
  );

  routes.get('/api/v1/notifications/unread_count', readScope, (ctx) =>
    cachedV1(ctx, async () => {
      const p = params(ctx);
      ctx.body = { count: await service.unreadCount(viewerId(ctx), filterOf(p, true), capOf(p)) };
    }),
  );

  routes.post('/api/v1/notifications/clear', writeScope, async (ctx) => {
    await service.clear(viewerId(ctx));
    ctx.body = {};
  });

  routes.get('/api/v1/notifications/:id', readScope, async (ctx) => {
    const viewer = viewerId(ctx);
    const row = await service.show(viewer, pathId(ctx));
    const { accounts, statuses } = await hydrate(viewer, [row.from_account_id], row.status_id ? [row.status_id] : []);
    const json = serializeNotification(row, accounts, statuses);
    if (!json) throw notFound();
    ctx.body = json;
  });

  routes.post('/api/v1/notifications/:id/dismiss', writeScope, async (ctx) => {
    await service.dismiss(viewerId(ctx), pathId(ctx));
    ctx.body = {};
  });

  // ── v2 ──
  routes.get('/api/v2/notifications', readScope, (ctx) =>
    cachedV2(ctx, async () => {
      const viewer = viewerId(ctx);
      const p = params(ctx);
      const expand = expandOf(p);
      const cursor = pageQuery(p, DEFAULT_LIMIT, MAX_LIMIT);
      const groups = await service.page(
        viewer,
        filterOf(p, false),
        selectGroupedTypes(arrayParam(p, 'grouped_types')),
        cursor,
      );
      const statusIds = groups.map((g) => g.statusId).filter((id): id is string => id !== null);
      const { accounts, statuses } = await renderer.renderWithAccounts(
        statusIds,
        viewer,
        groups.flatMap((g) => g.sampleAccountIds),
      );
      ctx.body = serializePage(groups, accounts, statuses, expand);
      if (groups.length)
        setLink(ctx, {
          baseUrl,
          path: '/api/v2/notifications',
          kept: keep(p, V2_KEPT),
          nextMaxId: groups[groups.length - 1].representativeId,
          prevMinId: groups[0].representativeId,
        });
    }),
  );

  routes.get('/api/v2/notifications/unread_count', readScope, (ctx) =>
    cachedV2(ctx, async () => {
      const p = params(ctx);
      ctx.body = {
        count: await service.unreadGroupCount(
          viewerId(ctx),
          filterOf(p, false),
          selectGroupedTypes(arrayParam(p, 'grouped_types')),
          capOf(p),
        ),
      };
    }),
  );

  routes.post('/api/v2/notifications/clear', writeScope, async (ctx) => {
    await service.clear(viewerId(ctx));
    ctx.body = {};
  });

  routes.get('/api/v2/notifications/:group_key', readScope, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    const group = await service.group(viewer, groupKeyParam(ctx));
    const { accounts, statuses } = await hydrate(
      viewer,
      group.sample_account_ids,
      group.status_id ? [group.status_id] : [],
    );
    ctx.body = serializeGroupEnvelope(group, accounts, statuses, expandOf(p));
  });

  routes.post('/api/v2/notifications/:group_key/dismiss', writeScope, async (ctx) => {
    await service.dismissGroup(viewerId(ctx), groupKeyParam(ctx));
    ctx.body = {};
  });

  routes.get('/api/v2/notifications/:group_key/accounts', readScope, async (ctx) => {
    const viewer = viewerId(ctx);
    const p = params(ctx);
    const key = groupKeyParam(ctx);
    const cursor = pageQuery(p, DEFAULT_LIMIT, MAX_LIMIT);
    const rows = await service.groupAccounts(viewer, key, cursor);
    const accounts = await renderer.accountsById(rows.map((row) => row.from_account_id));
    ctx.body = rows.map((row) => accounts.get(row.from_account_id)).filter(Boolean);
    if (rows.length) {
      setLink(ctx, {
        baseUrl,
        path: `/api/v2/notifications/${encodeURIComponent(key)}/accounts`,
        kept: keep(p, ['limit']),
        nextMaxId: rows.length === cursor.limit ? rows[rows.length - 1].id : null,
        prevMinId: rows[0].id,
      });
    }
  });
}

/** True when every query parameter is one `known` names (`types[]`, `types[0]` count as `types`). */
export function onlyKnownParams(ctx: Context, known: ReadonlySet<string>): boolean {
  return Object.keys(ctx.query).every((name) => known.has(name.replace(/\[\d*\]$/, '')));
}

function groupKeyParam(ctx: Context): string {
  const key = pathParam(ctx, 'group_key');
  return key.slice(0, 200);
}
