/**
 * Invites on the owner API (/api/nestbox/v1/invites: list, create with an expiry and a number of
 * uses, expire; …/invites/accounts: who came in through one) and the page an invite link opens,
 * /invite/:code: the sign-up form while the invite is usable (it signs up through Mastodon's
 * POST /api/v1/accounts with `invite_code`, so it works while registrations are closed), else a
 * page saying plainly why the link no longer works (410 expired or used up, 404 unknown).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { authenticate, currentAuth, requireScope } from '../http/auth.js';
import { parseBody } from '../http/body.js';
import type { TokenResolver } from '../lib/grants.js';
import type { Logger } from '../log/logger.js';
import { inviteRefusal, type InviteRow, type InvitesService } from '../social/invites/service.js';
import { escapeHtml } from '../social/statuses/html.js';
import { OWNER_API_PREFIX } from './owner-api.js';
import { loadPage, NO_CACHE, sendPage } from './static-pages.js';

export interface InvitesRoutesOptions {
  invites: InvitesService;
  baseUrl: string;
  resolveToken: TokenResolver;
  log: Logger;
}

export function invitesRouter(options: InvitesRoutesOptions): Router {
  const router = new Router();
  const { invites } = options;
  const read = requireScope('admin:read', { owner: true });
  const write = requireScope('admin:write', { owner: true });
  const auth = authenticate(options.resolveToken);
  const path = `${OWNER_API_PREFIX}/invites`;
  const page = loadPage('invite/index.html');
  const script = loadPage('invite/invite.js');
  const shown = (invite: InviteRow) => ({
    ...invite,
    url: `${options.baseUrl}/invite/${invite.code}`,
    state: invites.state(invite),
  });
  const noStore = async (ctx: Context, next: () => Promise<unknown>) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  };

  router.get(path, noStore, auth, read, async (ctx) => {
    ctx.body = (await invites.list()).map(shown);
  });
  router.post(path, noStore, auth, write, parseBody(), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const invite = await invites.create(currentAuth(ctx)!.accountId!, {
      expiresInS: body.expires_in === '' ? null : body.expires_in,
      maxUses: body.max_uses === '' ? null : body.max_uses,
    });
    options.log.info('invite created', {
      invite_id: invite.id,
      max_uses: invite.max_uses,
      expires_at: invite.expires_at,
    });
    ctx.status = 201;
    ctx.body = shown(invite);
  });
  router.get(`${path}/accounts`, noStore, auth, read, async (ctx) => {
    ctx.body = await invites.invitedAccounts();
  });
  router.delete(`${path}/:id`, noStore, auth, write, async (ctx) => {
    ctx.body = shown(await invites.expire(ctx.params.id));
  });

  router.get('/invite/invite.js', (ctx) => sendPage(ctx, script));
  router.get('/invite/:code', async (ctx) => {
    const invite = await invites.byCode(ctx.params.code);
    const state = invite ? invites.state(invite) : 'unknown';
    if (state === 'usable') return sendPage(ctx, page);
    ctx.status = state === 'unknown' ? 404 : 410;
    ctx.set(NO_CACHE);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = refusalPage(inviteRefusal(state));
  });

  return router;
}

function refusalPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" />
<title>Invite link</title><link rel="stylesheet" href="/dashboard/dashboard.css" /></head>
<body><main><h1>Invite link</h1><p class="error" id="invite-refused">${escapeHtml(message)}</p></main></body></html>
`;
}
