/** The social services, built once over one context; routes and tools use them. */
import type { SocialContext } from './context.js';
import { AccountsService } from './accounts/service.js';
import { OAuthService } from './oauth/service.js';

export interface SocialServices {
  oauth: OAuthService;
  accounts: AccountsService;
}

export function buildServices(ctx: SocialContext): SocialServices {
  return {
    oauth: new OAuthService(ctx),
    accounts: new AccountsService(ctx),
  };
}
