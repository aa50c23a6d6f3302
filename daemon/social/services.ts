/** The social services, built once over one context; routes and tools use them. */
import type { SocialContext } from './context.js';
import { AccountsService } from './accounts/service.js';
import { OAuthService } from './oauth/service.js';
import { NotificationsService } from './notifications/service.js';
import { RelationshipsService } from './relationships/service.js';
import { StatusesService } from './statuses/service.js';
import { StatusRenderer } from './statuses/serialize.js';
import { MarkersService } from './markers/service.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { breadthServices, type BreadthServices } from './breadth.js';
import { ListsService } from './lists/service.js';
import { Passwords } from './accounts/passwords.js';
import type { PasswordHasher } from './accounts/password-hasher.js';
import { LoginThrottle } from './ratelimit/login-throttle.js';

export interface SocialServices {
  oauth: OAuthService;
  accounts: AccountsService;
  notifications: NotificationsService;
  relationships: RelationshipsService;
  statuses: StatusesService;
  renderer: StatusRenderer;
  markers: MarkersService;
  lists: ListsService;
  limiter: RateLimiter;
  breadth: BreadthServices;
}

export function buildServices(ctx: SocialContext, hasher: PasswordHasher): SocialServices {
  const passwords = new Passwords(hasher);
  const throttle = new LoginThrottle({ address: ctx.config.loginLimitAddress, account: ctx.config.loginLimitAccount }, ctx.log);
  const limiter = new RateLimiter(ctx);
  const notifications = new NotificationsService(ctx);
  const statuses = new StatusesService(ctx, notifications, limiter);
  const renderer = new StatusRenderer(ctx);
  return {
    oauth: new OAuthService(ctx, passwords, throttle),
    accounts: new AccountsService(ctx, passwords),
    notifications,
    relationships: new RelationshipsService(ctx, notifications, limiter),
    statuses,
    renderer,
    markers: new MarkersService(ctx),
    lists: new ListsService(ctx),
    limiter,
    breadth: breadthServices(ctx, statuses, renderer, limiter, notifications),
  };
}
