/** All routes of the social instance on one router, each resource adding its own. */
import Router from '@koa/router';
import type { SocialContext } from '../context.js';
import type { SocialServices } from '../services.js';
import { Routes } from './routes.js';
import { oauthRoutes } from '../oauth/routes.js';

export function socialRouter(ctx: SocialContext, services: SocialServices): Router {
  const router = new Router();
  const routes = new Routes(router, services.oauth.resolve);
  oauthRoutes(routes, services.oauth, ctx.config.baseUrl);
  return router;
}
