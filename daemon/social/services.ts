/**
 * The social services, built once over one context in dependency order: the resources that take
 * part in posting and rendering (media, hashtags, polls, filters) first, then statuses and the
 * renderer with them, then everything built on those. Routes, jobs and tools use them.
 */
import type { SocialContext } from './context.js';
import { AccountsService } from './accounts/service.js';
import { OAuthService } from './oauth/service.js';
import { OnboardingService } from './onboarding/service.js';
import { InstanceIdentity } from './instance/identity.js';
import { InvitesService } from './invites/service.js';
import { InvitesRepo } from './invites/repo.js';
import { NotificationsService } from './notifications/service.js';
import { RelationshipsService } from './relationships/service.js';
import { StatusesService } from './statuses/service.js';
import { StatusRenderer } from './statuses/serialize.js';
import { RenderCache } from './render/cache.js';
import { MarkersService } from './markers/service.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { ListsService } from './lists/service.js';
import { ListsRepo } from './lists/repo.js';
import { Passwords } from './accounts/passwords.js';
import type { PasswordHasher } from './accounts/password-hasher.js';
import { LoginThrottle } from './ratelimit/login-throttle.js';
import { MediaService } from './media/service.js';
import { MediaStorage, loadMediaUrlKey } from './media/storage.js';
import { MediaSweep } from './media/sweep.js';
import { mediaCreateHook, mediaDecorator } from './media/hooks.js';
import { TagsRepo } from './tags/repo.js';
import { TagsService } from './tags/service.js';
import { tagsCreateHook, tagsEditHook, tagsDecorator } from './tags/hooks.js';
import { TimelinesRepo } from './timelines/repo.js';
import { TimelinesService } from './timelines/service.js';
import { FiltersService } from './filters/service.js';
import { filtersDecorator, filtersViewerKey } from './filters/decorator.js';
import { SearchService } from './search/service.js';
import { InstanceRepo } from './instance/repo.js';
import { InstanceService } from './instance/service.js';
import { vapidKeys, type VapidKeys } from './push/vapid.js';
import { PushService } from './push/service.js';
import { PushRepo } from './push/repo.js';
import { AnnouncementsService } from './announcements/service.js';
import { ReportsService } from './reports/service.js';
import { ReportsRepo } from './reports/repo.js';
import { AdminAccountsService } from './admin/service.js';
import { AdminRepo } from './admin/repo.js';
import { EmailsService } from './emails/service.js';
import { smtpMailer } from './emails/mailer.js';
import { ScheduledStatusesService } from './scheduled/service.js';
import { PollsService } from './polls/service.js';
import { pollsCreateHook, pollsDecorator, pollsEditHook } from './polls/hooks.js';
import { ConversationsRepo } from './conversations/repo.js';
import { ConversationsService } from './conversations/service.js';
import { FeaturedRepo } from './featured/repo.js';
import { FeaturedService } from './featured/service.js';
import { DirectoryRepo } from './directory/repo.js';
import { DirectoryService } from './directory/service.js';
import { RemoteLookups } from './federation/fetch/lookups.js';
import { RemoteActors } from './federation/actors/remote.js';
import { fetchContext } from './federation/context.js';
import type { FederationPeers } from './federation/peers.js';

export interface SocialServices {
  oauth: OAuthService;
  accounts: AccountsService;
  onboarding: OnboardingService;
  invites: InvitesService;
  notifications: NotificationsService;
  relationships: RelationshipsService;
  statuses: StatusesService;
  renderer: StatusRenderer;
  /** What the read path keeps rendered between requests (render/cache.ts). */
  renderCache: RenderCache;
  markers: MarkersService;
  lists: ListsService;
  limiter: RateLimiter;
  media: MediaService;
  mediaSweep: MediaSweep;
  /** Hashtags as a viewer sees them (following, featuring) and the tagging of statuses. */
  tags: TagsService;
  timelines: TimelinesService;
  filters: FiltersService;
  search: SearchService;
  instance: InstanceService;
  vapid: VapidKeys;
  push: PushService;
  announcements: AnnouncementsService;
  reports: ReportsService;
  admin: AdminAccountsService;
  emails: EmailsService;
  scheduled: ScheduledStatusesService;
  polls: PollsService;
  /** Remote accounts and statuses fetched when posting and searching; null without federation. */
  remote: RemoteLookups | null;
  conversations: ConversationsService;
  featured: FeaturedService;
  directory: DirectoryService;
}

/**
 * Loads what the services are built with (the VAPID keys, the media URL key, the media folders).
 * With `peers` (the daemon, not the admin tool) posting and search look remote accounts up.
 */
export async function buildServices(
  ctx: SocialContext,
  hasher: PasswordHasher,
  peers: FederationPeers | null,
): Promise<SocialServices> {
  const vapid = await vapidKeys(ctx.db);
  const storage = new MediaStorage(ctx.config.dataDir, ctx.config.baseUrl, await loadMediaUrlKey(ctx.db));
  await storage.prepare();
  const { baseUrl } = ctx.config;
  const passwords = new Passwords(hasher);
  const throttle = new LoginThrottle(
    { address: ctx.config.loginLimitAddress, account: ctx.config.loginLimitAccount },
    ctx.log,
  );
  const limiter = new RateLimiter(ctx);
  const instanceRepo = new InstanceRepo(ctx);
  const notifications = new NotificationsService(ctx);
  const media = new MediaService(ctx, storage, limiter);
  const tags = new TagsRepo(ctx);
  const featuredRepo = new FeaturedRepo(ctx);
  const renderCache = new RenderCache(ctx);
  const filters = new FiltersService(ctx, renderCache.activeFilters);
  const polls = new PollsService(ctx, notifications);
  const accounts = new AccountsService(ctx, passwords);
  const tagViews = new TagsService(tags, featuredRepo, ctx.now);
  const remoteActors = peers
    ? new RemoteActors(fetchContext(peers, ctx, { accounts, tags: tagViews, polls, media }))
    : null;
  const statuses = new StatusesService(
    ctx,
    notifications,
    limiter,
    {
      create: [mediaCreateHook(media), tagsCreateHook(tags, baseUrl), pollsCreateHook(polls)],
      edit: [pollsEditHook(polls), tagsEditHook(tags, baseUrl)],
    },
    remoteActors,
  );
  // Peers' statuses come in through the statuses service, as clients' do.
  const remote = remoteActors ? new RemoteLookups(remoteActors, statuses) : null;
  const relationships = new RelationshipsService(ctx, notifications, limiter, new ListsRepo(ctx), featuredRepo);
  const renderer = new StatusRenderer(
    ctx,
    renderCache,
    [mediaDecorator(media), tagsDecorator(tags, baseUrl), filtersDecorator(filters), pollsDecorator(polls, ctx.now)],
    [filtersViewerKey(filters)],
  );
  const oauth = new OAuthService(ctx, passwords, throttle);
  return {
    oauth,
    accounts,
    onboarding: new OnboardingService(accounts, oauth),
    invites: new InvitesService(new InvitesRepo(ctx), ctx.now),
    notifications,
    relationships,
    statuses,
    renderer,
    renderCache,
    markers: new MarkersService(ctx),
    lists: new ListsService(ctx),
    limiter,
    media,
    filters,
    polls,
    vapid,
    remote,
    mediaSweep: new MediaSweep(ctx, media),
    timelines: new TimelinesService(new TimelinesRepo(ctx), tags),
    search: new SearchService(ctx, statuses.visibility, remote),
    instance: new InstanceService(instanceRepo, new InstanceIdentity(ctx, instanceRepo)),
    push: new PushService(ctx, new PushRepo(ctx)),
    announcements: new AnnouncementsService(ctx),
    reports: new ReportsService(ctx, new ReportsRepo(ctx), limiter),
    scheduled: new ScheduledStatusesService(ctx, statuses, media),
    admin: new AdminAccountsService(ctx, new AdminRepo(ctx)),
    emails: new EmailsService(ctx, ctx.config.smtpUrl ? smtpMailer(ctx.config.smtpUrl, ctx.config.smtpFrom) : null),
    conversations: new ConversationsService(new ConversationsRepo(ctx)),
    featured: new FeaturedService(featuredRepo, tags, relationships, ctx.now),
    tags: tagViews,
    directory: new DirectoryService(new DirectoryRepo(ctx)),
  };
}
