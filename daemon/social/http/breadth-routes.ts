/** The routes of the breadth resources (issue 7), mounted by the social router. */
import type { SocialContext } from '../context.js';
import type { SocialServices } from '../services.js';
import type { Routes } from './routes.js';
import { mediaRoutes } from '../media/routes.js';
import { timelineRoutes } from '../timelines/routes.js';
import { filterRoutes } from '../filters/routes.js';
import { filterV1Routes } from '../filters/v1-routes.js';
import { searchRoutes } from '../search/routes.js';
import { instanceRoutes } from '../instance/routes.js';
import { announcementRoutes } from '../announcements/routes.js';
import { reportRoutes } from '../reports/routes.js';
import { pushRoutes } from '../push/routes.js';
import { adminRoutes } from '../admin/routes.js';
import { emailRoutes } from '../emails/routes.js';
import { statusHistoryRoutes } from '../statuses/history-routes.js';
import { scheduledRoutes } from '../scheduled/routes.js';
import { listRoutes } from '../lists/routes.js';
import { tagRoutes } from '../tags/routes.js';
import { conversationRoutes } from '../conversations/routes.js';
import { ConversationsRepo } from '../conversations/repo.js';
import { pollRoutes } from '../polls/routes.js';
import { directoryRoutes } from '../directory/routes.js';
import { featuredRoutes } from '../featured/routes.js';
import { FeaturedRepo } from '../featured/repo.js';
import { DirectoryRepo } from '../directory/repo.js';

export function breadthRoutes(routes: Routes, ctx: SocialContext, services: SocialServices): void {
  const { breadth, renderer } = services;
  const baseUrl = ctx.config.baseUrl;
  instanceRoutes(routes, { repo: breadth.instance, renderer, config: ctx.config, localDomain: ctx.localDomain, vapidKey: () => breadth.vapid.publicKey });
  mediaRoutes(routes, breadth.media, services.oauth);
  // Edit history and scheduled statuses list media: the media service renders them.
  const mediaById = (ids: readonly string[]) => breadth.media.jsonByIds(ids);
  statusHistoryRoutes(routes, services.statuses, renderer, mediaById);
  scheduledRoutes(routes, breadth.scheduled, mediaById, baseUrl);
  timelineRoutes(routes, { repo: breadth.timelines, tags: breadth.tags, renderer, baseUrl, publicPreview: ctx.config.publicPreview });
  filterRoutes(routes, breadth.filters);
  filterV1Routes(routes, breadth.filters);
  listRoutes(routes, { service: services.lists, timelines: breadth.timelines, renderer, baseUrl });
  searchRoutes(routes, breadth.search, renderer, baseUrl, ctx.now);
  const featured = new FeaturedRepo(ctx);
  tagRoutes(routes, breadth.tags, featured, baseUrl, ctx.now);
  featuredRoutes(routes, { repo: featured, tags: breadth.tags, renderer, relationships: services.relationships, baseUrl, now: ctx.now });
  conversationRoutes(routes, new ConversationsRepo(ctx), renderer, baseUrl);
  pollRoutes(routes, breadth.polls, ctx.now);
  directoryRoutes(routes, new DirectoryRepo(ctx), renderer);
  announcementRoutes(routes, breadth.announcements);
  reportRoutes(routes, breadth.reports, renderer);
  pushRoutes(routes, breadth.push, () => breadth.vapid.publicKey);
  adminRoutes(routes, breadth.admin, renderer, baseUrl);
  emailRoutes(routes, breadth.emails);
}
