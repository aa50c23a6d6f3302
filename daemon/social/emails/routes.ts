/** POST /api/v1/emails/confirmations, GET /api/v1/emails/check_confirmation, and the link in the mail (/auth/confirmation). */
import { params, stringParam } from '../http/params.js';
import { authOf, viewerId, type Routes } from '../http/routes.js';
import { escapeHtml } from '../statuses/html.js';
import { read, write } from '../oauth/scopes.js';
import type { EmailsService } from './service.js';

export function emailRoutes(routes: Routes, service: EmailsService): void {
  routes.post('/api/v1/emails/confirmations', { scopes: write('accounts'), unconfirmed: true }, async (ctx) => {
    await service.resend(viewerId(ctx), authOf(ctx).appId, stringParam(params(ctx), 'email'));
    ctx.body = {};
  });
  routes.get(
    '/api/v1/emails/check_confirmation',
    { scopes: [...read('accounts'), 'profile'], unconfirmed: true },
    async (ctx) => {
      ctx.body = await service.confirmed(viewerId(ctx));
    },
  );
  routes.get('/auth/confirmation', 'open', async (ctx) => {
    const token = stringParam(params(ctx), 'confirmation_token') ?? '';
    const ok = token !== '' && (await service.confirm(token));
    ctx.status = ok ? 200 : 404;
    ctx.type = 'text/html';
    ctx.body = `<!doctype html><meta charset="utf-8"><title>E-mail confirmation</title><p>${escapeHtml(ok ? 'Your e-mail address is confirmed.' : 'This confirmation link is not valid.')}</p>`;
  });
}
