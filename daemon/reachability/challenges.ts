/**
 * HTTP-01 answers (RFC 8555 §8.3): while an order is open, GET
 * /.well-known/acme-challenge/<token> on port 80 answers the key authorization as text, for any
 * Host. Nothing else is served under that path.
 */
import type { Middleware } from 'koa';

export const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

export class ChallengeResponder {
  private readonly tokens = new Map<string, string>();

  add(token: string, keyAuthorization: string): void {
    this.tokens.set(token, keyAuthorization);
  }

  remove(token: string): void {
    this.tokens.delete(token);
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      if (!ctx.path.startsWith(CHALLENGE_PREFIX)) {
        await next();
        return;
      }
      const answer = this.tokens.get(ctx.path.slice(CHALLENGE_PREFIX.length));
      ctx.set('Cache-Control', 'no-store');
      if (answer === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
        ctx.status = 404;
        ctx.body = { error: 'No such challenge' };
        return;
      }
      ctx.type = 'text/plain';
      ctx.body = answer;
    };
  }
}
