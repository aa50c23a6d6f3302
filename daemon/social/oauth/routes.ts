/**
 * /api/v1/apps, /oauth/authorize (login and consent page; the owner's sign-in for the box's own
 * dashboard), /oauth/token, /oauth/revoke, discovery.
 */
import type { Context } from 'koa';
import { statusOf } from '../../http/errors.js';
import { DomainError, unauthorized } from '../../lib/errors.js';
import { params, paramText, stringParam, type Params } from '../http/params.js';
import { authOf, type Routes } from '../http/routes.js';
import { KNOWN_SCOPES } from './scopes.js';
import { OAuthError, OOB_REDIRECT, type OAuthService } from './service.js';
import { OAuthPages } from './pages.js';
import { isOwnDashboard } from './own-dashboard.js';
import { serializeApp, serializeCredentialApp } from './serialize.js';

const AUTHORIZE_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

export function oauthRoutes(routes: Routes, oauth: OAuthService, baseUrl: string): void {
  const pages = new OAuthPages();

  routes.post('/api/v1/apps', 'open', async (ctx) => {
    const p = params(ctx);
    const redirect = p['redirect_uris[]'] ?? p.redirect_uris;
    const app = await oauth.createApp({
      client_name: stringParam(p, 'client_name'),
      redirect_uris: Array.isArray(redirect)
        ? redirect.map(paramText)
        : redirect === undefined
          ? undefined
          : paramText(redirect),
      scopes: stringParam(p, 'scopes'),
      website: stringParam(p, 'website'),
    });
    ctx.body = serializeCredentialApp(app);
  });

  routes.get('/api/v1/apps/verify_credentials', 'open', async (ctx) => {
    const auth = authOf(ctx);
    const app = auth.appId ? await oauth.appById(auth.appId) : undefined;
    if (!app) throw unauthorized();
    ctx.body = serializeApp(app);
  });

  routes.get('/oauth/assets/oauth.css', 'open', (ctx) => {
    ctx.type = 'text/css';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = pages.css;
  });

  routes.get('/oauth/authorize', 'open', async (ctx) => {
    const query = pick(params(ctx));
    await renderAuthorize(ctx, query);
  });

  routes.post('/oauth/authorize', 'open', async (ctx) => {
    const p = params(ctx);
    const query = pick(p);
    let checked;
    try {
      checked = await oauth.checkAuthorization(query);
    } catch (error) {
      return renderError(ctx, error);
    }
    const target = new URL(checked.redirectUri === OOB_REDIRECT ? 'http://oob.invalid/' : checked.redirectUri);
    if (query.state) target.searchParams.set('state', query.state);
    if (p.decision === 'deny') {
      if (checked.redirectUri === OOB_REDIRECT)
        return renderError(
          ctx,
          new OAuthError(
            'forbidden',
            'access_denied',
            'The resource owner or authorization server denied the request.',
          ),
        );
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'The resource owner or authorization server denied the request.');
      return ctx.redirect(target.toString());
    }
    const login = stringParam(p, 'login') ?? '';
    let accountId: string | null;
    try {
      // The socket's address: the daemon trusts no proxy (koa's proxy setting is off), so a
      // client cannot pick its own bucket with X-Forwarded-For.
      accountId = await oauth.login(login, stringParam(p, 'password') ?? '', ctx.socket.remoteAddress);
    } catch (error) {
      if (!(error instanceof DomainError) || (error.kind !== 'rate-limited' && error.kind !== 'busy')) throw error;
      ctx.status = statusOf(error);
      ctx.set(error.retry ?? {});
      return renderAuthorize(ctx, query, refusal(error), login);
    }
    if (!accountId) {
      ctx.status = 401;
      return renderAuthorize(ctx, query, 'Invalid username, e-mail or password.', login);
    }
    let code: string;
    try {
      code = await oauth.issueCode({
        app: checked.app,
        accountId,
        redirectUri: checked.redirectUri,
        scopes: checked.scopes,
        codeChallenge: query.code_challenge,
        codeChallengeMethod: query.code_challenge_method,
      });
    } catch (error) {
      // The redirect URI is checked by now, so the client hears of the refusal (RFC 6749 §4.1.2.1).
      if (!(error instanceof OAuthError) || checked.redirectUri === OOB_REDIRECT) return renderError(ctx, error);
      target.searchParams.set('error', error.code);
      target.searchParams.set('error_description', error.description);
      return ctx.redirect(target.toString());
    }
    if (checked.redirectUri === OOB_REDIRECT) {
      ctx.type = 'html';
      ctx.body = pages.codePage(code);
      return;
    }
    target.searchParams.set('code', code);
    ctx.redirect(target.toString());
  });

  routes.post('/oauth/token', 'open', async (ctx) => {
    await oauthJson(ctx, async () => oauth.exchange(withBasicAuth(ctx, params(ctx))));
  });

  routes.post('/oauth/revoke', 'open', async (ctx) => {
    await oauthJson(ctx, async () => {
      await oauth.revoke(withBasicAuth(ctx, params(ctx)));
      return {};
    });
  });

  routes.get('/.well-known/oauth-authorization-server', 'open', (ctx) => {
    ctx.body = {
      issuer: `${baseUrl}/`,
      service_documentation: 'https://docs.joinmastodon.org/',
      authorization_endpoint: `${baseUrl}/oauth/authorize`,
      token_endpoint: `${baseUrl}/oauth/token`,
      app_registration_endpoint: `${baseUrl}/api/v1/apps`,
      revocation_endpoint: `${baseUrl}/oauth/revoke`,
      userinfo_endpoint: `${baseUrl}/oauth/userinfo`,
      scopes_supported: KNOWN_SCOPES,
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    };
  });

  async function renderAuthorize(
    ctx: Context,
    query: Record<string, string | undefined>,
    message?: string,
    login?: string,
  ): Promise<void> {
    try {
      const { app, redirectUri, scopes } = await oauth.checkAuthorization(query);
      const signIn = isOwnDashboard({ ...query, app, redirectUri }, `${ctx.protocol}://${ctx.host}`, baseUrl);
      const hidden: Record<string, string> = {};
      for (const field of AUTHORIZE_FIELDS) if (query[field]) hidden[field] = query[field]!;
      hidden.redirect_uri = redirectUri;
      hidden.scope = scopes.join(' ');
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.set(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'self'; form-action 'self' *; frame-ancestors 'none'",
      );
      ctx.body = signIn
        ? pages.signInPage({ hidden, message, login })
        : pages.authorizePage({ appName: app.name, website: app.website, scopes, hidden, message, login });
    } catch (error) {
      renderError(ctx, error);
    }
  }

  function renderError(ctx: Context, error: unknown): void {
    if (!(error instanceof OAuthError)) throw error;
    ctx.status = statusOf(error);
    ctx.type = 'html';
    ctx.body = pages.errorPage(error.description);
  }
}

/** The login form's words for a refused attempt. */
function refusal(error: DomainError): string {
  const waitS = Number(error.retry?.['Retry-After'] ?? 1);
  if (error.kind === 'busy') return 'The box is busy checking other sign-ins. Try again in a moment.';
  const wait = waitS < 120 ? `${waitS} seconds` : `${Math.ceil(waitS / 60)} minutes`;
  return `Too many sign-in attempts. Try again in ${wait}.`;
}

function pick(p: Params): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const field of AUTHORIZE_FIELDS) out[field] = typeof p[field] === 'string' ? p[field] : undefined;
  return out;
}

/** Client credentials may come in an HTTP Basic header instead of the body. */
function withBasicAuth(ctx: Context, p: Params): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(p)) if (typeof value === 'string') out[key] = value;
  const match = /^Basic\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (match) {
    const [id, secret] = Buffer.from(match[1], 'base64').toString('utf8').split(':');
    out.client_id ??= formDecoded(id ?? '');
    out.client_secret ??= formDecoded(secret ?? '');
  }
  return out;
}

/** RFC 6749 §2.3.1: Basic credentials are form-encoded; a malformed escape is kept as written (and then matches no client). */
function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

async function oauthJson(ctx: Context, run: () => Promise<object>): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  try {
    ctx.body = await run();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    ctx.status = statusOf(error);
    ctx.body = { error: error.code, error_description: error.description };
  }
}
