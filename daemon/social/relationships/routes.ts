/** Follow, unfollow, blocks, mutes, follow requests, domain blocks, notes, relationships and the account lists. */
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.js';
import { notFound } from '../../lib/errors.js';
import { arrayParam, boolParam, params, pathId, requireString, stringParam } from '../http/params.js';
import { keep, pageQuery, setLink } from '../http/pagination.js';
import { viewerId, type Routes } from '../http/routes.js';
import { sendAccountPage } from '../http/lists.js';
import { read, write } from '../oauth/scopes.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { AccountsService } from '../accounts/service.js';
import { serializeAccount } from '../accounts/serialize.js';
import { isValidId } from '../../store/ids.js';
import type { RelationshipsService } from './service.js';
import { serializeRelationship } from './serialize.js';

/** Accounts named per account in familiar_followers (apps show a few avatars). */
const FAMILIAR_MAX = 40;

/** `id[]` (or a single `id`): valid ids only, once each, at most 80. */
function accountIds(ctx: Context): string[] {
  return [
    ...new Set(
      (arrayParam(params(ctx), 'id') ?? (typeof ctx.query.id === 'string' ? [ctx.query.id] : [])).filter(isValidId),
    ),
  ].slice(0, 80);
}

export function relationshipRoutes(
  routes: Routes,
  service: RelationshipsService,
  accounts: AccountsService,
  renderer: StatusRenderer,
  baseUrl: string,
): void {
  const relationship = async (viewer: string, target: string) =>
    serializeRelationship(await service.relationship(viewer, target));

  routes.get('/api/v1/accounts/relationships', { scopes: read('follows') }, async (ctx) => {
    const ids = accountIds(ctx);
    const rows = await service.relationships(viewerId(ctx), ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    ctx.body = ids
      .map((id) => byId.get(id))
      .filter(Boolean)
      .map((row) => serializeRelationship(row!));
  });

  // "Followed by …" on a profile: who among the accounts one follows follows it.
  routes.get('/api/v1/accounts/familiar_followers', { scopes: read('follows') }, async (ctx) => {
    const ids = accountIds(ctx);
    const rows = await service.familiarFollowers(viewerId(ctx), ids);
    const accounts = await renderer.accountsById([...new Set(rows.map((row) => row.account_id))]);
    ctx.body = ids.map((id) => ({
      id,
      accounts: rows
        .filter((row) => row.target_id === id)
        .slice(0, FAMILIAR_MAX)
        .map((row) => accounts.get(row.account_id))
        .filter(Boolean),
    }));
  });

  routes.post('/api/v1/accounts/:id/follow', { scopes: write('follows') }, async (ctx) => {
    const p = params(ctx);
    const viewer = viewerId(ctx);
    const target = pathId(ctx);
    const { headers } = await service.follow(viewer, target, {
      reblogs: boolParam(p, 'reblogs'),
      notify: boolParam(p, 'notify'),
      languages: arrayParam(p, 'languages'),
    });
    if (headers) ctx.set(headers);
    ctx.body = await relationship(viewer, target);
  });

  /** The document's path: follow by address; answers the followed account. */
  routes.post('/api/v1/follows', { scopes: write('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const target = await accounts.lookup(requireString(params(ctx), 'uri'));
    const { headers } = await service.follow(viewer, target.id, {});
    if (headers) ctx.set(headers);
    ctx.body = serializeAccount(target, baseUrl);
  });

  const simple = (
    path: string,
    scope: string[],
    run: (viewer: string, target: string, p: ReturnType<typeof params>) => Promise<void>,
  ) => {
    routes.post(path, { scopes: scope }, async (ctx) => {
      const viewer = viewerId(ctx);
      const target = pathId(ctx);
      await run(viewer, target, params(ctx));
      ctx.body = await relationship(viewer, target);
    });
  };
  simple('/api/v1/accounts/:id/unfollow', write('follows'), (v, t) => service.unfollow(v, t));
  simple('/api/v1/accounts/:id/remove_from_followers', write('follows'), (v, t) => service.unfollow(t, v));
  simple('/api/v1/accounts/:id/block', write('blocks'), (v, t) => service.block(v, t));
  simple('/api/v1/accounts/:id/unblock', write('blocks'), (v, t) => service.unblock(v, t));
  simple('/api/v1/accounts/:id/mute', write('mutes'), (v, t, p) => {
    const duration = p.duration === undefined || p.duration === null || p.duration === '' ? 0 : Number(p.duration);
    if (!Number.isFinite(duration)) throw new HttpError(400, "Invalid value for 'duration'");
    return service.mute(v, t, boolParam(p, 'notifications') ?? true, duration);
  });
  simple('/api/v1/accounts/:id/unmute', write('mutes'), (v, t) => service.unmute(v, t));
  simple('/api/v1/accounts/:id/note', write('accounts'), (v, t, p) =>
    service.setNote(v, t, stringParam(p, 'comment') ?? ''),
  );

  routes.post('/api/v1/follow_requests/:id/authorize', { scopes: write('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const requester = pathId(ctx);
    await service.authorize(viewer, requester);
    ctx.body = await relationship(viewer, requester);
  });
  routes.post('/api/v1/follow_requests/:id/reject', { scopes: write('follows') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const requester = pathId(ctx);
    await service.reject(viewer, requester);
    ctx.body = await relationship(viewer, requester);
  });

  const list = (
    path: string,
    scope: string[],
    table: 'follow_requests' | 'blocks' | 'mutes',
    direction: 'in' | 'out',
  ) => {
    routes.get(path, { scopes: scope }, async (ctx) => {
      const p = params(ctx);
      const page = pageQuery(p, 40, 80);
      await sendAccountPage(
        ctx,
        renderer,
        baseUrl,
        p,
        page,
        await service.listEdges(table, direction, viewerId(ctx), page),
      );
    });
  };
  list('/api/v1/follow_requests', read('follows'), 'follow_requests', 'in');
  list('/api/v1/blocks', read('blocks'), 'blocks', 'out');
  list('/api/v1/mutes', read('mutes'), 'mutes', 'out');

  for (const [path, direction] of [
    ['/api/v1/accounts/:id/followers', 'in'],
    ['/api/v1/accounts/:id/following', 'out'],
  ] as const) {
    routes.get(path, { ifToken: read('accounts') }, async (ctx) => {
      const id = pathId(ctx);
      const account = await accounts.byId(id);
      if (!account || account.suspended_at) throw notFound();
      const p = params(ctx);
      const page = pageQuery(p, 40, 80);
      await sendAccountPage(ctx, renderer, baseUrl, p, page, await service.listEdges('follows', direction, id, page));
    });
  }

  routes.get('/api/v1/domain_blocks', { scopes: read('blocks') }, async (ctx) => {
    const p = params(ctx);
    const page = pageQuery(p, 100, 200);
    const rows = await service.domainBlocks(viewerId(ctx), page);
    ctx.body = rows.map((row) => row.domain);
    if (rows.length)
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, ['limit']),
        nextMaxId: rows.length === page.limit ? rows[rows.length - 1].id : null,
        prevMinId: rows[0].id,
      });
  });
  routes.post('/api/v1/domain_blocks', { scopes: write('blocks') }, async (ctx) => {
    await service.blockDomain(viewerId(ctx), requireString(params(ctx), 'domain'));
    ctx.body = {};
  });
  routes.delete('/api/v1/domain_blocks', { scopes: write('blocks') }, async (ctx) => {
    await service.unblockDomain(viewerId(ctx), requireString(params(ctx), 'domain'));
    ctx.body = {};
  });
}
