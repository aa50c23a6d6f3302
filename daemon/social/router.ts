/** All routes of the social instance on one router, each resource adding its own. */
import type Router from '@koa/router';
import type { SocialContext } from './context.js';
import type { SocialServices } from './services.js';
import { Routes } from './http/routes.js';
import { MatchCachingRouter } from './http/match-caching-router.js';
import { oauthRoutes } from './oauth/routes.js';
import { accountRoutes } from './accounts/routes.js';
import { relationshipRoutes } from './relationships/routes.js';
import { statusRoutes } from './statuses/routes.js';
import { notificationRoutes } from './notifications/routes.js';
import { notificationPolicyRoutes } from './notification-policy/routes.js';
import { markerRoutes } from './markers/routes.js';
import { staticRoutes } from './accounts/missing-images.js';
import { renderedJsonBodies } from './render/json-body.js';
import { renderScheduled } from './scheduled/routes.js';
import { mediaRoutes } from './media/routes.js';
import { timelineRoutes } from './timelines/routes.js';
import { filterRoutes } from './filters/routes.js';
import { filterV1Routes } from './filters/v1-routes.js';
import { searchRoutes } from './search/routes.js';
import { instanceRoutes } from './instance/routes.js';
import { announcementRoutes } from './announcements/routes.js';
import { reportRoutes } from './reports/routes.js';
import { pushRoutes } from './push/routes.js';
import { adminRoutes } from './admin/routes.js';
import { adminReportRoutes } from './reports/admin-routes.js';
import { emailRoutes } from './emails/routes.js';
import { statusHistoryRoutes } from './statuses/history-routes.js';
import { scheduledRoutes } from './scheduled/routes.js';
import { listRoutes } from './lists/routes.js';
import { tagRoutes } from './tags/routes.js';
import { conversationRoutes } from './conversations/routes.js';
import { pollRoutes } from './polls/routes.js';
import { directoryRoutes } from './directory/routes.js';
import { featuredRoutes } from './featured/routes.js';

export function socialRouter(ctx: SocialContext, services: SocialServices): Router {
  const router = new MatchCachingRouter();
  router.use(renderedJsonBodies);
  const { renderer, scheduled, media } = services;
  const routes = new Routes(router, services.oauth.resolve, media.storage.incoming);
  const baseUrl = ctx.config.baseUrl;
  // Edit history and scheduled statuses list media: the media service renders them.
  const mediaById = (ids: readonly string[]) => media.jsonByIds(ids);
  oauthRoutes(routes, services.oauth, baseUrl);
  // Fixed paths before `/:id` ones: relationships and lookup/search are registered first.
  relationshipRoutes(routes, services.relationships, services.accounts, renderer, baseUrl);
  accountRoutes(routes, { ctx, ...services });
  statusRoutes(routes, services.statuses, renderer, services.relationships, baseUrl, {
    when: (at) => scheduled.when(at),
    schedule: async (author, input, at) => renderScheduled(await scheduled.schedule(author, input, at), mediaById),
  });
  // Before /api/v1/notifications/:id, which would take `policy` and `requests` for ids.
  notificationPolicyRoutes(routes, services.notifications.policy, renderer, baseUrl);
  notificationRoutes(routes, services.notifications, renderer, baseUrl, services.renderCache.responses);
  markerRoutes(routes, services.markers);
  instanceRoutes(routes, {
    instance: services.instance,
    renderer,
    config: ctx.config,
    localDomain: ctx.localDomain,
    vapidKey: () => services.vapid.publicKey,
  });
  mediaRoutes(routes, media, services.oauth);
  statusHistoryRoutes(routes, services.statuses, renderer, mediaById);
  scheduledRoutes(routes, scheduled, mediaById, baseUrl);
  timelineRoutes(routes, { timelines: services.timelines, renderer, baseUrl, publicPreview: ctx.config.publicPreview });
  filterRoutes(routes, services.filters);
  filterV1Routes(routes, services.filters);
  listRoutes(routes, { service: services.lists, timelines: services.timelines, renderer, baseUrl });
  searchRoutes(routes, services.search, services.tags, renderer, baseUrl);
  tagRoutes(routes, services.tags, baseUrl);
  featuredRoutes(routes, services.featured, renderer, baseUrl);
  conversationRoutes(routes, services.conversations, renderer, baseUrl);
  pollRoutes(routes, services.polls, ctx.now);
  directoryRoutes(routes, services.directory, renderer);
  announcementRoutes(routes, services.announcements);
  reportRoutes(routes, services.reports, renderer);
  pushRoutes(routes, services.push, () => services.vapid.publicKey);
  adminRoutes(routes, services.admin, renderer, baseUrl);
  adminReportRoutes(routes, services.reports, services.admin, renderer, baseUrl);
  emailRoutes(routes, services.emails);
  staticRoutes(routes);
  return router;
}
