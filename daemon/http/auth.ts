/**
 * Bearer-token authentication shared by the social API and the owner's appliance API.
 * The social instance supplies the TokenResolver (OAuth tokens in SQLite); routes declare the
 * scopes they accept with requireScope(), Mastodon's way: a token holding the parent scope
 * ("read") or the child ("read:statuses") passes; "write" never implies "read".
 */
import type { Context, Middleware, Next } from 'koa';
import { HttpError } from './errors.js';
import { scopeAllows, type AuthContext, type TokenResolver } from '../lib/grants.js';

export interface AuthState {
  auth?: AuthContext | null;
}

/** The token of a request: Authorization: Bearer, or access_token in the query (streaming, some clients). */
export function bearerToken(ctx: Context): string | null {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match) return match[1];
  const query = ctx.query.access_token;
  return typeof query === 'string' && query ? query : null;
}

/** Resolves the token, if any, into ctx.state.auth; an unknown token is 401 at once. */
export function authenticate(resolve: TokenResolver): Middleware {
  return async (ctx: Context, next: Next) => {
    const token = bearerToken(ctx);
    if (!token) {
      ctx.state.auth = null;
      await next();
      return;
    }
    const auth = await resolve(token);
    if (!auth) throw new HttpError(401, 'The access token is invalid');
    ctx.state.auth = auth;
    await next();
  };
}

export interface ScopeOptions {
  /** The route needs a user (not an app-only token): 422 "This method requires an authenticated user". */
  user?: boolean;
  /** The route is for the box owner only (403 otherwise). */
  owner?: boolean;
  /** The route serves users who have not confirmed their e-mail yet (the confirmation routes). */
  unconfirmed?: boolean;
}

/** Needs a token holding one of `accepted` (or a parent of one). 401 without a token, 403 without the scope. */
export function requireScope(accepted: string | string[], options: ScopeOptions = { user: true }): Middleware {
  const list = Array.isArray(accepted) ? accepted : [accepted];
  return async (ctx: Context, next: Next) => {
    const auth = ctx.state.auth as AuthContext | null | undefined;
    if (!auth) throw new HttpError(401, 'The access token is invalid');
    if (!list.some((scope) => scopeAllows(auth.scopes, scope))) {
      throw new HttpError(403, 'This action is outside the authorized scopes');
    }
    if ((options.user ?? true) && !auth.accountId)
      throw new HttpError(422, 'This method requires an authenticated user');
    if (options.owner && !auth.owner) throw new HttpError(403, 'This action is allowed only to the owner of the box');
    if (auth.unconfirmed && !options.unconfirmed)
      throw new HttpError(403, 'Your login is missing a confirmed e-mail address');
    await next();
  };
}

export function currentAuth(ctx: Context): AuthContext | null {
  return (ctx.state.auth as AuthContext | null | undefined) ?? null;
}
