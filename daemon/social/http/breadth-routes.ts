/** The routes of the breadth resources (issue 7), mounted by the social router. */
import type { SocialContext } from '../context.js';
import type { SocialServices } from '../services.js';
import type { Routes } from './routes.js';
import { mediaRoutes } from '../media/routes.js';
import { timelineRoutes } from '../timelines/routes.js';
import { filterRoutes } from '../filters/routes.js';
import { searchRoutes } from '../search/routes.js';
import { instanceRoutes } from '../instance/routes.js';
import { announcementRoutes } from '../announcements/routes.js';
import { reportRoutes } from '../reports/routes.js';
import { pushRoutes } from '../push/routes.js';
import { adminRoutes } from '../admin/routes.js';
import { emailRoutes } from '../emails/routes.js';
import { statusHistoryRoutes } from '../statuses/history-routes.js';
import { serializeMedia } from '../media/serialize.js';
import { listRoutes } from '../lists/routes.js';

export function breadthRoutes(routes: Routes, ctx: SocialContext, services: SocialServices): void {
  const { breadth, renderer } = services;
  const baseUrl = ctx.config.baseUrl;
  instanceRoutes(routes, { repo: breadth.instance, renderer, config: ctx.config, localDomain: ctx.localDomain, vapidKey: () => breadth.vapid.publicKey });
  mediaRoutes(routes, breadth.media, services.oauth);
  // Edit history lists the media each version had: the media service renders them.
  statusHistoryRoutes(routes, services.statuses, renderer, async (ids) => {
    const rows = new Map((await breadth.media.repo.byIds(ids)).map((row) => [String(row.id), row]));
    return ids.flatMap((id) => (rows.has(id) ? [serializeMedia(rows.get(id)!, breadth.media.storage)] : []));
  });
  timelineRoutes(routes, { repo: breadth.timelines, tags: breadth.tags, renderer, baseUrl, publicPreview: ctx.config.publicPreview });
  filterRoutes(routes, breadth.filters);
  listRoutes(routes, { service: services.lists, timelines: breadth.timelines, renderer, baseUrl });
  searchRoutes(routes, breadth.search, renderer, baseUrl, ctx.now);
  announcementRoutes(routes, breadth.announcements);
  reportRoutes(routes, breadth.reports, renderer);
  pushRoutes(routes, breadth.push, () => breadth.vapid.publicKey);
  adminRoutes(routes, breadth.admin, renderer, baseUrl);
  emailRoutes(routes, breadth.emails);
}
