/**
 * The render cache: everything the social read path keeps between requests, and the one story of
 * what makes it stale.
 *
 * - Accounts (`accounts.ts`): account JSON by (id, render version).
 * - Status rows (`status-rows.ts`): the rows the status renderer reads, by (id, render version).
 * - Statuses (`statuses.ts`): status JSON for a viewer, by everything it was made from.
 * - Responses (`response-cache.ts`): whole answers of hot reads, by SQLite's data version.
 * - Active filters (`active-filters.ts`): each account's unexpired filters, which status keys digest.
 *
 * Invalidation is by version, not by a call (one exception, below): SQLite triggers bump an
 * account's `version` on any change to its row, and a status's on any change to its row, mentions,
 * hashtags, media or poll (migrations `…_51_social_render_versions` and `…_58_social_polls`). A
 * cached value is served only while the versions it was made from still hold, so every writer
 * invalidates it without knowing it exists: the API, federation's inbox, scheduled posts and the
 * admin tool in its own process. What a status's JSON also depends on is in its key: the viewer's
 * flags (read afresh on every render), the versions of its author and mentioned accounts, its
 * reblogged original's key, the viewer's filters (ViewerKey) and whether its poll has ended.
 * Responses are kept only while no commit happened since they were made, from any connection or
 * process. The exception, kept by a call: active filters, forgotten by FiltersService on every
 * change (filters have no other writer, in this process or another) and lapsing at their first
 * expiry. Every part is bounded; the oldest entries go first.
 */
import type { SocialContext } from '../context.js';
import { AccountsRepo } from '../accounts/repo.js';
import { StatusRenderRowsRepo } from '../statuses/render-rows-repo.js';
import type { StatusJson } from '../statuses/serialize.js';
import type { ActiveFilters } from '../filters/service.js';
import { RenderedAccounts, type RenderedAccount } from './accounts.js';
import { StatusRenderRows, type LoadedStatus } from './status-rows.js';
import { RenderedStatuses } from './statuses.js';
import { ResponseCache } from './response-cache.js';
import { ActiveFiltersCache } from './active-filters.js';

export class RenderCache {
  readonly accounts: RenderedAccounts;
  readonly statusRows: StatusRenderRows;
  readonly statuses = new RenderedStatuses<StatusJson>();
  readonly responses: ResponseCache;
  readonly activeFilters = new ActiveFiltersCache<ActiveFilters>();

  private readonly renderRows: StatusRenderRowsRepo;

  constructor(ctx: SocialContext) {
    this.accounts = new RenderedAccounts(new AccountsRepo(ctx), ctx.config.baseUrl);
    this.renderRows = new StatusRenderRowsRepo(ctx);
    this.statusRows = new StatusRenderRows(this.renderRows);
    this.responses = new ResponseCache(ctx.reader);
  }

  /**
   * The statuses among `statusIds` (as `statusRows.load`) and the accounts among `accountIds` (as
   * `accounts.byIds`), read in one statement where both are asked for: a page's rows in one round
   * trip instead of two.
   */
  async statusesAndAccounts(
    statusIds: readonly string[],
    viewerId: string | null,
    accountIds: readonly string[],
  ): Promise<{ statuses: LoadedStatus[]; accounts: Map<string, RenderedAccount> }> {
    if (statusIds.length === 0 || accountIds.length === 0) {
      const [statuses, accounts] = await Promise.all([
        this.statusRows.load(statusIds, viewerId),
        this.accounts.byIds(accountIds),
      ]);
      return { statuses, accounts };
    }
    const heldStatuses = this.statusRows.hold(statusIds);
    const heldAccounts = this.accounts.hold(accountIds);
    const [statusRows, accountRows] = await this.renderRows.renderRowsAndAccounts(
      heldStatuses.known,
      viewerId,
      heldAccounts.known,
    );
    return {
      statuses: this.statusRows.settle(heldStatuses, statusRows),
      accounts: this.accounts.settle(heldAccounts, accountRows),
    };
  }
}
