/** Registration, credentials, account lookup/search/show, and an account's statuses. */
import { inviteRefusal, inviteState } from '../invites/service.js';
import type { Context } from 'koa';
import { uploadOf } from '../http/multipart.js';

/** Largest avatar or header accepted (413 beyond). */
const IMAGE_LIMIT_BYTES = 8 * 1024 * 1024;
import { HttpError } from '../../http/errors.js';
import { notFound, nullIfNotFound } from '../../lib/errors.js';
import { boolParam, manyIds, params, paramText, pathId, stringParam, type Params } from '../http/params.js';
import { keep, offsetParam, pageQuery, setLink } from '../http/pagination.js';
import { authOf, optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { OAuthService } from '../oauth/service.js';
import type { RelationshipsService } from '../relationships/service.js';
import type { StatusesService } from '../statuses/service.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import type { SocialContext } from '../context.js';
import { serializeAccount, serializeCredentialAccount, type AccountJson } from './serialize.js';
import type { AccountRow } from './repo.js';
import { validationFailed, type AccountsService, type UpdateCredentials } from './service.js';

export interface AccountRouteDeps {
  ctx: SocialContext;
  accounts: AccountsService;
  oauth: OAuthService;
  relationships: RelationshipsService;
  statuses: StatusesService;
  renderer: StatusRenderer;
}

const INVITE_PROBLEM: Record<string, string> = { expired: 'has expired', used_up: 'has been used up' };

export function accountRoutes(routes: Routes, deps: AccountRouteDeps): void {
  const { ctx: social, accounts, oauth, relationships, statuses, renderer } = deps;
  const baseUrl = social.config.baseUrl;

  async function credentialAccount(accountId: string) {
    const [row, user, requests] = await Promise.all([
      accounts.get(accountId),
      accounts.user(accountId),
      accounts.followRequestCount(accountId),
    ]);
    return serializeCredentialAccount(row, user, requests, baseUrl);
  }

  routes.post('/api/v1/accounts', { scopes: write('accounts'), user: false }, async (ctx) => {
    const auth = authOf(ctx);
    const p = params(ctx);
    const inviteCode = stringParam(p, 'invite_code');
    const invite = inviteCode ? await accounts.inviteByCode(inviteCode) : undefined;
    const state = invite ? inviteState(invite, social.now()) : 'unknown';
    const validInvite = invite && state === 'usable';
    const mode = social.config.registrations;
    // Mastodon's 403; with a code, the reason the link no longer works.
    if (mode === 'closed' && !validInvite)
      throw new HttpError(403, inviteCode ? inviteRefusal(state) : 'This action is not allowed');
    const input = {
      username: stringParam(p, 'username'),
      email: stringParam(p, 'email'),
      password: stringParam(p, 'password'),
    };
    const details = await accounts.validateNew(input);
    if (boolParam(p, 'agreement') !== true)
      (details.agreement ??= []).push({ error: 'ERR_ACCEPTED', description: 'must be accepted' });
    const reason = stringParam(p, 'reason')?.trim() ?? '';
    if (reason.length > 1000)
      (details.reason ??= []).push({ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 1000 characters)' });
    if (inviteCode && !validInvite)
      (details.invite_code ??= []).push({ error: 'ERR_INVALID', description: INVITE_PROBLEM[state] ?? 'is invalid' });
    if (Object.keys(details).length) throw validationFailed(details);
    const account = await accounts.createLocal({
      username: input.username!,
      email: input.email!,
      password: input.password!,
      approved: mode === 'open' || Boolean(validInvite),
      reason: reason || null,
      inviteId: validInvite ? invite.id : null,
      appId: auth.appId,
    });
    ctx.body = await oauth.issueToken({ appId: auth.appId, accountId: account.id, scopes: [...auth.scopes] });
  });

  routes.get(
    ['/api/v1/accounts/verify_credentials', '/api/v1/verify_credentials'],
    { scopes: ['profile', ...read('accounts')] },
    async (ctx) => {
      ctx.body = await credentialAccount(viewerId(ctx));
    },
  );

  // OpenID Connect userinfo (Mastodon 4.4): who the token's user is, for "sign in with" clients.
  routes.add('get', '/oauth/userinfo', { scopes: ['profile'] }, userinfo);
  routes.add('post', '/oauth/userinfo', { scopes: ['profile'] }, userinfo);
  async function userinfo(ctx: Context): Promise<void> {
    const account = serializeAccount(await accounts.get(viewerId(ctx)), baseUrl);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      iss: `${baseUrl}/`,
      sub: account.uri,
      name: account.display_name,
      preferred_username: account.username,
      profile: account.url,
      picture: account.avatar,
    };
  }

  // Apps read the posting defaults here (Mastodon's web settings set the reading ones; the box has none).
  routes.get('/api/v1/preferences', { scopes: read('accounts') }, async (ctx) => {
    const user = await accounts.user(viewerId(ctx));
    ctx.body = {
      'posting:default:visibility': user.default_privacy,
      'posting:default:sensitive': Boolean(user.default_sensitive),
      'posting:default:language': user.default_language,
      'posting:default:quote_policy': 'public',
      'reading:expand:media': 'default',
      'reading:expand:spoilers': false,
      'reading:autoplay:gifs': false,
    };
  });

  routes.patch(
    '/api/v1/accounts/update_credentials',
    { scopes: write('accounts') },
    async (ctx) => {
      const viewer = viewerId(ctx);
      const input = credentialsInput(params(ctx));
      const stored: string[] = [];
      let unlocked: boolean;
      try {
        for (const kind of ['avatar', 'header'] as const) {
          const file = uploadOf(ctx, kind);
          if (!file) continue;
          input[kind] = await accounts.storeImage(viewer, kind, file.filepath);
          stored.push(input[kind].original);
        }
        ({ unlocked } = await accounts.updateCredentials(viewer, input));
      } catch (error) {
        // A refused update keeps no image of it.
        for (const image of stored) await accounts.removeImage(image);
        throw error;
      }
      if (unlocked) await relationships.authorizePendingOnUnlock(viewer);
      ctx.body = await credentialAccount(viewer);
    },
    { files: 2, fileBytes: IMAGE_LIMIT_BYTES },
  );

  // Removing the picture or banner (Mastodon 4.2): back to the default image.
  for (const kind of ['avatar', 'header'] as const) {
    routes.delete(`/api/v1/profile/${kind}`, { scopes: write('accounts') }, async (ctx) => {
      const viewer = viewerId(ctx);
      await accounts.updateCredentials(viewer, { [kind]: null });
      ctx.body = await credentialAccount(viewer);
    });
  }

  routes.get('/system/accounts/:kind/:account/:variant/:file', 'open', async (ctx) => {
    const { kind, account, variant, file } = ctx.params as Record<string, string>;
    const image = await accounts.readImage(kind, account, variant, file);
    if (!image) throw notFound();
    ctx.type = image.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = image.bytes;
  });

  routes.get('/api/v1/accounts/lookup', { ifToken: read('accounts') }, async (ctx) => {
    const acct = stringParam(params(ctx), 'acct');
    if (!acct) throw notFound();
    ctx.body = await withMoved(await accounts.lookup(acct));
  });

  routes.get('/api/v1/accounts/search', { scopes: read('accounts') }, async (ctx) => {
    const p = params(ctx);
    const limit = Math.min(Math.max(Number.parseInt(paramText(p.limit ?? 40), 10) || 40, 1), 80);
    const offset = offsetParam(p) ?? 0;
    const rows = await accounts.search(stringParam(p, 'q') ?? '', limit, offset);
    ctx.body = rows.map((row) => serializeAccount(row, baseUrl));
  });

  // Several accounts at once (Mastodon 4.3), in the order asked; unknown ids are left out.
  routes.get('/api/v1/accounts', { ifToken: read('accounts') }, async (ctx) => {
    const ids = manyIds(params(ctx));
    const rows = await Promise.all(ids.map((id) => accounts.get(id).catch(nullIfNotFound)));
    ctx.body = await Promise.all(rows.filter((row): row is AccountRow => row !== null).map(withMoved));
  });

  routes.get('/api/v1/accounts/:id', { ifToken: read('accounts') }, async (ctx) => {
    const row = await accounts.get(pathId(ctx));
    ctx.body = await withMoved(row);
  });

  /** Mastodon's `moved`: the account it moved to, present only after a move (not nested further). */
  async function withMoved(row: AccountRow): Promise<AccountJson> {
    const json = serializeAccount(row, baseUrl);
    const target = await accounts.movedTo(row.id);
    if (target) json.moved = serializeAccount(target, baseUrl);
    return json;
  }

  routes.get('/api/v1/accounts/:id/statuses', { ifToken: read('statuses') }, async (ctx) => accountStatuses(ctx));

  async function accountStatuses(ctx: Context): Promise<void> {
    const id = pathId(ctx);
    const account = await accounts.get(id);
    const viewer = optionalViewerId(ctx);
    const p = params(ctx);
    const page = pageQuery(p, 20, 40);
    const blocked = viewer ? await relationships.exists('blocks', id, viewer) : false;
    if (account.suspended_at || blocked) {
      ctx.body = [];
      return;
    }
    const pinned = boolParam(p, 'pinned') ?? false;
    const rows = await statuses.ofAccount(
      id,
      viewer,
      {
        pinned,
        excludeReplies: boolParam(p, 'exclude_replies') ?? false,
        excludeReblogs: boolParam(p, 'exclude_reblogs') ?? false,
      },
      page,
    );
    const rendered = await renderer.render(
      rows.map((row) => row.id),
      viewer,
    );
    ctx.body = rows.map((row) => rendered.get(row.id)).filter(Boolean);
    if (rows.length) {
      setLink(ctx, {
        baseUrl,
        path: ctx.path,
        kept: keep(p, ['limit', 'pinned', 'exclude_replies', 'exclude_reblogs', 'only_media', 'tagged']),
        nextMaxId: rows[rows.length - 1].id,
        prevMinId: rows[0].id,
      });
    }
  }
}

function credentialsInput(p: Params): UpdateCredentials {
  const source = (typeof p.source === 'object' && p.source !== null ? p.source : {}) as Params;
  const text = (name: string) => {
    const value = p[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new HttpError(400, `Invalid value for '${name}'`);
    return value;
  };
  const input: UpdateCredentials = {
    display_name: text('display_name'),
    note: text('note'),
    locked: boolParam(p, 'locked'),
    bot: boolParam(p, 'bot'),
    discoverable: boolParam(p, 'discoverable'),
    privacy: stringParam(source, 'privacy') ?? stringParam(p, 'source[privacy]'),
    sensitive: boolParam(source, 'sensitive') ?? boolParam(p, 'source[sensitive]'),
    language: stringParam(source, 'language') ?? stringParam(p, 'source[language]'),
  };
  const fields = p.fields_attributes;
  if (fields && typeof fields === 'object') {
    const list = (Array.isArray(fields) ? fields : Object.values(fields)) as Array<{ name?: unknown; value?: unknown }>;
    input.fields = list
      .filter((f) => f && typeof f === 'object')
      .map((f) => ({ name: paramText(f.name ?? ''), value: paramText(f.value ?? '') }))
      .filter((f) => f.name || f.value);
  }
  return input;
}
