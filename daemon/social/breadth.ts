/**
 * The social instance's breadth (issue 7) built over the core services: media, hashtags,
 * timelines, search, filters and instance information, plus the streaming hub. Media, hashtags
 * and filters plug into posting and rendering through the statuses' hooks and decorators.
 */
import type { SocialContext } from './context.js';
import type { StatusesService } from './statuses/service.js';
import type { StatusRenderer } from './statuses/serialize.js';
import { MediaService } from './media/service.js';
import { MediaStorage } from './media/storage.js';
import { MediaSweep } from './media/sweep.js';
import { mediaCreateHook, mediaDecorator } from './media/hooks.js';
import { TagsRepo } from './tags/repo.js';
import { tagsCreateHook, tagsDecorator } from './tags/hooks.js';
import { TimelinesRepo } from './timelines/repo.js';
import { FiltersService } from './filters/service.js';
import { filtersDecorator, filtersViewerKey } from './filters/decorator.js';
import { SearchService } from './search/service.js';
import { InstanceRepo } from './instance/repo.js';
import { vapidKeys, type VapidKeys } from './push/vapid.js';
import { PushService } from './push/service.js';
import { AnnouncementsService } from './announcements/service.js';
import { ReportsService } from './reports/service.js';
import { AdminAccountsService } from './admin/service.js';
import { EmailsService } from './emails/service.js';
import { smtpMailer } from './emails/mailer.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import { ScheduledStatusesService } from './scheduled/service.js';
import type { NotificationsService } from './notifications/service.js';
import { PollsService } from './polls/service.js';
import { pollsCreateHook, pollsDecorator, pollsEditHook } from './polls/hooks.js';

export interface BreadthServices {
  media: MediaService;
  mediaSweep: MediaSweep;
  tags: TagsRepo;
  timelines: TimelinesRepo;
  filters: FiltersService;
  search: SearchService;
  instance: InstanceRepo;
  vapid: VapidKeys;
  push: PushService;
  announcements: AnnouncementsService;
  reports: ReportsService;
  admin: AdminAccountsService;
  emails: EmailsService;
  scheduled: ScheduledStatusesService;
  polls: PollsService;
  /** Loads what start-up needs (the VAPID keys, the media folders). */
  open(): Promise<void>;
}

export function breadthServices(ctx: SocialContext, statuses: StatusesService, renderer: StatusRenderer, limiter: RateLimiter, notifications: NotificationsService): BreadthServices {
  const media = new MediaService(ctx, new MediaStorage(ctx.config.dataDir, ctx.config.baseUrl), limiter);
  const tags = new TagsRepo(ctx);
  const filters = new FiltersService(ctx);
  const polls = new PollsService(ctx, statuses, notifications);
  statuses.createHooks.push(mediaCreateHook(media), tagsCreateHook(tags, ctx.config.baseUrl), pollsCreateHook(polls));
  statuses.editHooks.push(pollsEditHook(polls));
  renderer.decorators.push(mediaDecorator(media), tagsDecorator(tags, ctx.config.baseUrl), filtersDecorator(filters), pollsDecorator(polls, ctx.now));
  renderer.viewerKeys.push(filtersViewerKey(filters));
  const services: BreadthServices = {
    media, tags, filters, polls,
    mediaSweep: new MediaSweep(ctx, media),
    timelines: new TimelinesRepo(ctx),
    search: new SearchService(ctx, statuses.visibility),
    instance: new InstanceRepo(ctx),
    vapid: { publicKey: '', privateKey: '' },
    push: new PushService(ctx),
    announcements: new AnnouncementsService(ctx),
    reports: new ReportsService(ctx, limiter),
    scheduled: new ScheduledStatusesService(ctx, statuses, media),
    admin: new AdminAccountsService(ctx),
    emails: new EmailsService(ctx, ctx.config.smtpUrl ? smtpMailer(ctx.config.smtpUrl, ctx.config.smtpFrom) : null),
    async open() {
      services.vapid = await vapidKeys(ctx.db);
      await media.storage.prepare();
      await media.storage.openUrlKey(ctx.db);
    },
  };
  return services;
}
