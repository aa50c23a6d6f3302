/** All routes of the social instance on one router, each resource adding its own. */
import Router from '@koa/router';
import type { SocialContext } from '../context.js';
import type { SocialServices } from '../services.js';
import { Routes } from './routes.js';
import { oauthRoutes } from '../oauth/routes.js';
import { accountRoutes } from '../accounts/routes.js';
import { relationshipRoutes } from '../relationships/routes.js';
import { statusRoutes } from '../statuses/routes.js';
import { notificationRoutes } from '../notifications/routes.js';
import { notificationPolicyRoutes } from '../notification-policy/routes.js';
import { markerRoutes } from '../markers/routes.js';
import { staticRoutes } from './static.js';
import { ResponseCache } from './response-cache.js';
import { breadthRoutes } from './breadth-routes.js';
import { renderScheduled } from '../scheduled/routes.js';

export function socialRouter(ctx: SocialContext, services: SocialServices): Router {
  const router = new Router();
  const routes = new Routes(router, services.oauth.resolve, services.breadth.media.storage.incoming);
  const baseUrl = ctx.config.baseUrl;
  oauthRoutes(routes, services.oauth, baseUrl);
  // Fixed paths before `/:id` ones: relationships and lookup/search are registered first.
  relationshipRoutes(routes, services.relationships, services.accounts, services.renderer, baseUrl);
  accountRoutes(routes, { ctx, ...services });
  const { scheduled, media } = services.breadth;
  statusRoutes(routes, services.statuses, services.renderer, services.relationships.repo, baseUrl, {
    when: (at) => scheduled.when(at),
    schedule: async (author, input, at) => renderScheduled(await scheduled.schedule(author, input, at), (ids) => media.jsonByIds(ids)),
  });
  // Before /api/v1/notifications/:id, which would take `policy` and `requests` for ids.
  notificationPolicyRoutes(routes, services.notifications.policy, services.renderer, baseUrl);
  notificationRoutes(routes, services.notifications, services.renderer, baseUrl, new ResponseCache(ctx.reader));
  markerRoutes(routes, services.markers);
  breadthRoutes(routes, ctx, services);
  staticRoutes(routes);
  return router;
}
