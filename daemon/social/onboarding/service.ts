/**
 * The first run: while the box has no owner, the owner's account can be created from the
 * dashboard (username, e-mail, password with Mastodon's rules, display name) and signed in at
 * once. Account, role and the dashboard's token are one transaction: an error leaves nothing, and
 * of two people racing, one becomes the owner and the other is told there is nothing to create.
 * Who may ask (proof of holding the box) is the dashboard route's business.
 */
import type { AccountRow } from '../accounts/repo.js';
import { DISPLAY_NAME_MAX, validationFailed, type AccountsService } from '../accounts/service.js';
import type { IssuedToken, OAuthService } from '../oauth/service.js';
import { notFound } from '../../lib/errors.js';

export interface OwnerInput {
  username?: string;
  email?: string;
  password?: string;
  display_name?: string;
}

export interface OwnerSignedIn extends IssuedToken {
  /** The app holding the token, so the dashboard can revoke it at log-out. */
  client_id: string;
  client_secret: string;
  account: AccountRow;
}

/** What the dashboard's token may do: the owner API (the dashboard's own OAuth login asks for the same). */
export const DASHBOARD_SCOPES = ['admin:read', 'admin:write'];

class OwnerExists extends Error {}

export class OnboardingService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly oauth: OAuthService,
  ) {}

  async ownerNeeded(): Promise<boolean> {
    return (await this.accounts.ownerAccountId()) === undefined;
  }

  /** Creates the owner and a dashboard token; "not found" once an owner exists. */
  async createOwner(input: OwnerInput): Promise<OwnerSignedIn> {
    if (!(await this.ownerNeeded())) throw notFound();
    const displayName = typeof input.display_name === 'string' ? input.display_name.trim() : '';
    const details = await this.accounts.validateNew(input);
    if (displayName.length > DISPLAY_NAME_MAX)
      details.display_name = [
        { error: 'ERR_TOO_LONG', description: `is too long (maximum is ${DISPLAY_NAME_MAX} characters)` },
      ];
    if (Object.keys(details).length) throw validationFailed(details);
    let token: (IssuedToken & { client_id: string; client_secret: string }) | undefined;
    try {
      const account = await this.accounts.createLocal({
        username: input.username!,
        email: input.email!,
        password: input.password!,
        displayName,
        owner: true,
        approved: true,
        within: async (trx, accountId) => {
          if ((await this.accounts.repo.ownerCountIn(trx)) > 1) throw new OwnerExists();
          token = await this.oauth.issueAppTokenIn(trx, {
            appName: 'Nestbox dashboard',
            accountId,
            scopes: DASHBOARD_SCOPES,
          });
        },
      });
      return { ...token!, account };
    } catch (error) {
      if (error instanceof OwnerExists) throw notFound();
      throw error;
    }
  }
}
