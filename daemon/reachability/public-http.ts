/**
 * The public side of the box's HTTP: ACME challenges answered for any host, `http://<name>/…`
 * redirected to https once the instance has switched to it (the home network's names and addresses
 * keep plain http), and HSTS on HTTPS answers from then on.
 */
import type { Middleware } from 'koa';
import type { ChallengeResponder } from './challenges.js';

/** One year, as Mozilla's recommended configurations give it. */
const HSTS = 'max-age=31536000';

export function publicHttp(challenges: ChallengeResponder, switchedName: () => string | null): Middleware {
  const answerChallenge = challenges.middleware();
  return async (ctx, next) => {
    const name = switchedName();
    if (!name) {
      await answerChallenge(ctx, next);
      return;
    }
    if (ctx.secure) {
      ctx.set('Strict-Transport-Security', HSTS);
      await next();
      return;
    }
    await answerChallenge(ctx, async () => {
      if (ctx.hostname.toLowerCase() !== name) {
        await next();
        return;
      }
      ctx.status = 301;
      ctx.redirect(`https://${name}${ctx.originalUrl}`);
    });
  };
}
