/**
 * How social routes are declared: each names the scopes it accepts (Mastodon's lists), or says it
 * is open (a token, when sent, is still resolved so the viewer is known). The token and its scopes
 * are checked before the body is read: a refused request never costs a parse or a temporary file.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { authenticate, requireScope, currentAuth } from '../../http/auth.js';
import type { AuthContext, TokenResolver } from '../../lib/grants.js';
import { bodyParser } from './multipart.js';
import { unauthorized } from '../../lib/errors.js';

export type Access =
  | { scopes: string[]; user?: boolean; owner?: boolean; unconfirmed?: boolean }
  /** No token needed; a sent token must hold one of these scopes (Mastodon's authorize_if_got_token!). */
  | { ifToken: string[] }
  /** No token needed; a sent token is still checked (401 when unknown). */
  | 'open';

export type Handler = (ctx: Context) => Promise<void> | void;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export class Routes {
  private readonly body: Middleware;
  private readonly auth: Middleware;

  /** `uploadDir`: where file parts of multipart bodies are written while the request lasts. */
  constructor(
    readonly router: Router,
    resolver: TokenResolver,
    private readonly uploadDir: string,
  ) {
    this.auth = authenticate(resolver);
    this.body = bodyParser(uploadDir);
  }

  /** `files`: the route takes that many uploaded files of at most `fileBytes` each. */
  add(
    method: Method,
    path: string | string[],
    access: Access,
    handler: Handler,
    upload?: { files: number; fileBytes: number },
  ): void {
    const chain: Middleware[] = [this.auth];
    if (access !== 'open' && 'ifToken' in access) chain.push(ifToken(requireScope(access.ifToken, { user: false })));
    else if (access !== 'open')
      chain.push(
        requireScope(access.scopes, {
          user: access.user ?? true,
          owner: access.owner,
          unconfirmed: access.unconfirmed,
        }),
      );
    chain.push(upload ? bodyParser(this.uploadDir, upload) : this.body);
    for (const p of Array.isArray(path) ? path : [path]) {
      (this.router[method] as (path: string, ...mw: Middleware[]) => Router)(p, ...chain, async (ctx) => {
        await handler(ctx);
      });
    }
  }

  get(path: string | string[], access: Access, handler: Handler): void {
    this.add('get', path, access, handler);
  }
  post(path: string | string[], access: Access, handler: Handler): void {
    this.add('post', path, access, handler);
  }
  put(path: string | string[], access: Access, handler: Handler): void {
    this.add('put', path, access, handler);
  }
  patch(
    path: string | string[],
    access: Access,
    handler: Handler,
    upload?: { files: number; fileBytes: number },
  ): void {
    this.add('patch', path, access, handler, upload);
  }
  delete(path: string | string[], access: Access, handler: Handler): void {
    this.add('delete', path, access, handler);
  }
}

function ifToken(check: Middleware): Middleware {
  return async (ctx, next) => {
    if (currentAuth(ctx)) await check(ctx, next);
    else await next();
  };
}

/** The account of the request's token; routes declared with `user: true` always have one. */
export function viewerId(ctx: Context): string {
  const auth = currentAuth(ctx);
  if (!auth?.accountId) throw unauthorized('This method requires an authenticated user');
  return auth.accountId;
}

export function optionalViewerId(ctx: Context): string | null {
  return currentAuth(ctx)?.accountId ?? null;
}

export function authOf(ctx: Context): AuthContext {
  const auth = currentAuth(ctx);
  if (!auth) throw unauthorized();
  return auth;
}
