/**
 * OAuth 2.0 the way Mastodon (Doorkeeper) does it: apps, the authorization-code grant with PKCE
 * S256 and `state`, the client-credentials grant, revocation, and hashed bearer tokens that never
 * expire. Admin scopes are granted only to the owner's account.
 */
import type { Knex } from 'knex';
import { unprocessable, forbidden, DomainError, type ErrorKind } from '../../lib/errors.js';
import type { AuthContext } from '../../lib/grants.js';
import type { SocialContext } from '../context.js';
import { AccountsRepo } from '../accounts/repo.js';
import type { Passwords } from '../accounts/passwords.js';
import { PASSWORD_MAX } from '../accounts/service.js';
import type { LoginThrottle } from '../ratelimit/login-throttle.js';
import { OAuthRepo, type AppRow } from './repo.js';
import { GrantCache } from './grant-cache.js';
import { DEFAULT_SCOPES, isAdminScope, parseScopes } from './scopes.js';
import { pkceChallenge, randomSecret, safeEqual, sha256 } from './secrets.js';

export const OOB_REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';
const CODE_TTL_MS = 10 * 60 * 1000;
/** An app nothing refers to is kept this long, as Mastodon does: a client may register, then sign in. */
const APP_VACUUM_AGE_MS = 24 * 3600 * 1000;
const NAME_MAX = 60;
const URL_MAX = 2000;

/** An OAuth error: rendered as {"error": code, "error_description": …} or as the error page. */
export class OAuthError extends DomainError {
  constructor(
    kind: ErrorKind,
    readonly code: string,
    readonly description: string,
  ) {
    super(kind, code);
  }
}

export interface NewApp {
  client_name?: string;
  redirect_uris?: string | string[];
  scopes?: string;
  website?: string;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  scope: string;
  created_at: number;
}

export class OAuthService {
  readonly repo: OAuthRepo;
  private readonly accounts: AccountsRepo;
  private readonly grants: GrantCache;

  constructor(
    private readonly ctx: SocialContext,
    private readonly passwords: Passwords,
    private readonly throttle: LoginThrottle,
  ) {
    this.repo = new OAuthRepo(ctx);
    this.accounts = new AccountsRepo(ctx);
    this.grants = new GrantCache(ctx.reader);
  }

  revokeAccountTokens(
    ...args: Parameters<OAuthRepo['revokeAccountTokens']>
  ): ReturnType<OAuthRepo['revokeAccountTokens']> {
    return this.repo.revokeAccountTokens(...args);
  }

  // The reads routes answer with, as the repo makes them.
  appById(...args: Parameters<OAuthRepo['appById']>): ReturnType<OAuthRepo['appById']> {
    return this.repo.appById(...args);
  }

  async createApp(input: NewApp, ownerAccountId: string | null = null): Promise<AppRow> {
    const name = (input.client_name ?? '').trim();
    if (!name) throw unprocessable("Validation failed: Application name can't be blank");
    if (name.length > NAME_MAX)
      throw unprocessable(`Validation failed: Application name is too long (maximum is ${NAME_MAX} characters)`);
    const uris = (
      Array.isArray(input.redirect_uris) ? input.redirect_uris : String(input.redirect_uris ?? '').split(/[\s\n]+/)
    )
      .map((uri) => String(uri).trim())
      .filter(Boolean);
    if (uris.length === 0) throw unprocessable("Validation failed: Redirect URI can't be blank");
    if (uris.join('\n').length > URL_MAX)
      throw unprocessable(`Validation failed: Redirect URI is too long (maximum is ${URL_MAX} characters)`);
    for (const uri of uris)
      if (!isRedirectUri(uri)) throw unprocessable('Validation failed: Redirect URI must be an absolute URI.');
    const { scopes, unknown } = parseScopes(
      input.scopes === undefined || input.scopes === '' ? DEFAULT_SCOPES : input.scopes,
    );
    if (unknown.length || scopes.length === 0) throw unprocessable('Validation failed: Scopes must be valid scopes');
    const website = input.website?.trim() || null;
    if (website && (website.length > URL_MAX || !isHttpUrl(website)))
      throw unprocessable('Validation failed: Website is invalid');
    const row = {
      name,
      website,
      redirect_uri: uris.join('\n'),
      scopes: scopes.join(' '),
      client_id: randomSecret(32),
      client_secret: randomSecret(32),
    };
    const id = await this.repo.insertApp({ ...row, owner_account_id: ownerAccountId });
    return { id, ...row };
  }

  async authenticateClient(clientId: string | undefined, clientSecret: string | undefined): Promise<AppRow> {
    const app = clientId ? await this.repo.appByClientId(clientId) : undefined;
    if (!app || !clientSecret || !safeEqual(app.client_secret, clientSecret)) {
      throw new OAuthError(
        'unauthenticated',
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    return app;
  }

  /** Checks an authorization request before the login page is shown. */
  async checkAuthorization(q: {
    response_type?: string;
    client_id?: string;
    redirect_uri?: string;
    scope?: string;
    code_challenge?: string;
    code_challenge_method?: string;
  }): Promise<{ app: AppRow; redirectUri: string; scopes: string[] }> {
    const app = q.client_id ? await this.repo.appByClientId(q.client_id) : undefined;
    if (!app)
      throw new OAuthError('unauthenticated', 'invalid_client', 'Client authentication failed due to unknown client.');
    const registered = app.redirect_uri.split('\n');
    const redirectUri = q.redirect_uri || (registered.length === 1 ? registered[0] : '');
    if (!registered.includes(redirectUri))
      throw new OAuthError(
        'invalid',
        'invalid_redirect_uri',
        "The requested redirect uri is malformed or doesn't match client redirect URI.",
      );
    if (q.response_type !== 'code')
      throw new OAuthError(
        'invalid',
        'unsupported_response_type',
        'The authorization server does not support this response type.',
      );
    const scopes = this.grantableScopes(q.scope, app);
    if (q.code_challenge_method && q.code_challenge_method !== 'S256')
      throw new OAuthError('invalid', 'invalid_request', 'The code challenge method must be S256.');
    if (q.code_challenge_method && !q.code_challenge)
      throw new OAuthError('invalid', 'invalid_request', 'The code challenge is missing.');
    return { app, redirectUri, scopes };
  }

  private grantableScopes(requested: string | undefined, app: AppRow): string[] {
    const { scopes, unknown } = parseScopes(requested || app.scopes);
    const allowed = new Set(app.scopes.split(' '));
    if (unknown.length || scopes.length === 0 || scopes.some((scope) => !allowed.has(scope))) {
      throw new OAuthError('invalid', 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
    }
    return scopes;
  }

  /**
   * Login with username or e-mail and password from a client at `address`; returns the account
   * id or null. Throttled (429) before the password is hashed; the attempt counts against the
   * account the login names, so its username and e-mail share one budget.
   */
  async login(login: string, password: string, address: string | undefined): Promise<string | null> {
    const user = await this.accounts.userByLogin(login.trim());
    await this.throttle.attempt(
      address,
      user
        ? { key: `account:${user.account_id}`, accountId: user.account_id }
        : { key: `login:${login.trim().toLowerCase()}`, accountId: null },
    );
    // No stored password is longer: a longer one cannot match and is not worth hashing.
    if (password.length > PASSWORD_MAX) return null;
    if (!user || user.disabled) return this.passwords.refuse(password).then(() => null);
    return (await this.passwords.verify(password, user.password_hash)) ? user.account_id : null;
  }

  async issueCode(input: {
    app: AppRow;
    accountId: string;
    redirectUri: string;
    scopes: string[];
    codeChallenge?: string;
    codeChallengeMethod?: string;
  }): Promise<string> {
    await this.assertScopesForAccount(input.accountId, input.scopes);
    const code = randomSecret(32);
    await this.repo.insertCode({
      code_hash: sha256(code),
      app_id: input.app.id,
      account_id: input.accountId,
      redirect_uri: input.redirectUri,
      scopes: input.scopes.join(' '),
      code_challenge: input.codeChallenge || null,
      code_challenge_method: input.codeChallenge ? input.codeChallengeMethod || 'S256' : null,
      expires_at: new Date(this.ctx.now() + CODE_TTL_MS).toISOString(),
    });
    return code;
  }

  private async assertScopesForAccount(accountId: string, scopes: string[]): Promise<void> {
    if (!scopes.some(isAdminScope)) return;
    const user = await this.accounts.userByAccountId(accountId);
    // access_denied (not invalid_scope): the request is well formed, this account may not grant it.
    if (user?.role !== 'owner')
      throw new OAuthError(
        'forbidden',
        'access_denied',
        "Only the box owner's account may grant the admin scopes; this account is not the owner.",
      );
  }

  async exchange(p: Record<string, string | undefined>): Promise<IssuedToken> {
    const grant = p.grant_type;
    if (grant !== 'authorization_code' && grant !== 'client_credentials') {
      throw new OAuthError(
        'invalid',
        'unsupported_grant_type',
        'The authorization grant type is not supported by the authorization server.',
      );
    }
    const app = await this.authenticateClient(p.client_id, p.client_secret);
    if (grant === 'client_credentials') {
      const scopes = this.grantableScopes(p.scope, app).filter((scope) => !isAdminScope(scope));
      if (scopes.length === 0)
        throw new OAuthError('invalid', 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
      return this.issueToken({ appId: app.id, accountId: null, scopes });
    }
    const invalidGrant = () =>
      new OAuthError(
        'invalid',
        'invalid_grant',
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
      );
    const code = p.code ? await this.repo.consumeCode(sha256(p.code)) : undefined;
    if (!code || code.app_id !== app.id || Date.parse(code.expires_at) < this.ctx.now()) throw invalidGrant();
    if ((p.redirect_uri ?? code.redirect_uri) !== code.redirect_uri) throw invalidGrant();
    if (code.code_challenge) {
      if (!p.code_verifier || !safeEqual(pkceChallenge(p.code_verifier), code.code_challenge)) throw invalidGrant();
    }
    return this.issueToken({ appId: app.id, accountId: code.account_id, scopes: code.scopes.split(' ') });
  }

  async issueToken(input: { appId: string | null; accountId: string | null; scopes: string[] }): Promise<IssuedToken> {
    if (input.accountId) await this.assertScopesForAccount(input.accountId, input.scopes);
    return this.writeToken(this.ctx.db, input);
  }

  private async writeToken(
    trx: Knex,
    input: { appId: string | null; accountId: string | null; scopes: string[] },
  ): Promise<IssuedToken> {
    const token = randomSecret(32);
    const { created_at } = await this.repo.insertToken(
      { token_hash: sha256(token), app_id: input.appId, account_id: input.accountId, scopes: input.scopes.join(' ') },
      trx,
    );
    return {
      access_token: token,
      token_type: 'Bearer',
      scope: input.scopes.join(' '),
      created_at: Math.floor(Date.parse(created_at) / 1000),
    };
  }

  /**
   * An app of its own and a token for it, written in the caller's transaction: a sign-in that is
   * part of creating the account (the owner's, at onboarding), undone with it.
   */
  async issueAppTokenIn(
    trx: Knex,
    input: { appName: string; accountId: string; scopes: string[] },
  ): Promise<IssuedToken & { client_id: string; client_secret: string }> {
    const app = {
      name: input.appName,
      website: null,
      redirect_uri: OOB_REDIRECT,
      scopes: input.scopes.join(' '),
      client_id: randomSecret(32),
      client_secret: randomSecret(32),
    };
    const appId = await this.repo.insertApp({ ...app, owner_account_id: input.accountId }, trx);
    const token = await this.writeToken(trx, { appId, accountId: input.accountId, scopes: input.scopes });
    return { ...token, client_id: app.client_id, client_secret: app.client_secret };
  }

  /** Removes what OAuth no longer needs (see OAuthRepo.vacuum); run daily. */
  async vacuum(): Promise<void> {
    const removed = await this.repo.vacuum(new Date(this.ctx.now()), APP_VACUUM_AGE_MS);
    if (removed.tokens || removed.codes || removed.apps)
      this.ctx.log.info('oauth vacuum', { revoked_tokens: removed.tokens, codes: removed.codes, apps: removed.apps });
  }

  async revoke(p: Record<string, string | undefined>): Promise<void> {
    const app = await this.authenticateClient(p.client_id, p.client_secret);
    const token = p.token ? await this.repo.tokenAppByHash(sha256(p.token)) : undefined;
    if (!token) return; // idempotent, as RFC 7009 asks
    if (token.app_id !== app.id)
      throw new OAuthError('forbidden', 'unauthorized_client', 'You are not authorized to revoke this token');
    await this.repo.revokeToken(token.id);
  }

  /**
   * The TokenResolver (daemon/lib/grants.ts) over the hashed tokens: a prepared lookup, skipped
   * while nothing was committed since the token's last one (GrantCache), so a revocation (also from
   * the admin tool, another process) still applies at once.
   */
  readonly resolve = (token: string): Promise<AuthContext | null> => {
    const hash = sha256(token);
    return this.grants.resolve(hash, () => this.lookUp(hash));
  };

  private async lookUp(hash: string): Promise<AuthContext | null> {
    const row = await this.repo.tokenByHash(hash);
    if (!row) return null;
    if (row.account_id && (row.disabled || row.suspended_at)) throw forbidden('Your login is currently disabled');
    if (row.account_id && !row.approved) throw forbidden('Your login is currently pending approval');
    const owner = row.role === 'owner';
    // Admin scopes are the owner's only, whatever a token row says.
    const scopes = row.scopes.split(' ').filter((scope) => owner || !isAdminScope(scope));
    // With an SMTP server, users who signed up through an app must confirm their address first.
    const unconfirmed = Boolean(
      row.account_id && this.ctx.config.smtpUrl && !row.confirmed_at && row.created_by_app_id,
    );
    return {
      tokenId: row.id,
      accountId: row.account_id,
      appId: row.app_id,
      scopes: new Set(scopes),
      owner,
      ...(unconfirmed ? { unconfirmed } : {}),
    };
  }
}

function isRedirectUri(uri: string): boolean {
  if (uri === OOB_REDIRECT) return true;
  try {
    const url = new URL(uri);
    return Boolean(url.protocol) && !url.hash;
  } catch {
    return false;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
