/**
 * Cross-origin access as Mastodon grants it (rack-cors outermost): any origin, no credentials,
 * on the API, the token endpoints, discovery and the public actor and profile URLs. Outermost
 * so that error answers carry the headers too: a browser hides a refusal without them, and a
 * web client then cannot tell a 401 from a network failure.
 */
import type { Middleware } from 'koa';

interface Resource {
  path: RegExp;
  methods: readonly string[];
  expose?: readonly string[];
}

const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** The headers web clients read: paging, rate limits, the id to quote in a bug report. */
const API_EXPOSED = ['Link', 'X-RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Request-Id'];

const RESOURCES: readonly Resource[] = [
  { path: /^\/api\//, methods: API_METHODS, expose: API_EXPOSED },
  { path: /^\/oauth\/(token|revoke)$/, methods: ['POST'] },
  { path: /^\/oauth\/userinfo$/, methods: ['GET', 'POST'] },
  { path: /^\/\.well-known\//, methods: ['GET'] },
  { path: /^\/nodeinfo\//, methods: ['GET'] },
  { path: /^\/users\/[^/]+$/, methods: ['GET'] },
  { path: /^\/@[^/]+$/, methods: ['GET'] },
];

/** How long a browser may keep a preflight's answer (rack-cors' default). */
const MAX_AGE_S = 7200;

export function cors(): Middleware {
  return async (ctx, next) => {
    const resource = ctx.get('origin') ? RESOURCES.find((r) => r.path.test(ctx.path)) : undefined;
    if (!resource) {
      await next();
      return;
    }
    const requested = ctx.get('access-control-request-method').toUpperCase();
    if (ctx.method === 'OPTIONS' && requested) {
      if (!resource.methods.includes(requested)) {
        await next();
        return;
      }
      ctx.status = 200;
      ctx.set({
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': resource.methods.join(', '),
        'Access-Control-Max-Age': String(MAX_AGE_S),
      });
      const headers = ctx.get('access-control-request-headers');
      if (headers) ctx.set('Access-Control-Allow-Headers', headers);
      if (resource.expose) ctx.set('Access-Control-Expose-Headers', resource.expose.join(', '));
      ctx.body = '';
      return;
    }
    if (!resource.methods.includes(ctx.method)) {
      await next();
      return;
    }
    ctx.set('Access-Control-Allow-Origin', '*');
    if (resource.expose) ctx.set('Access-Control-Expose-Headers', resource.expose.join(', '));
    await next();
  };
}
