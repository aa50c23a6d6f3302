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
import { StatusesRepo } from '../statuses/repo.js';
import type { StatusJson } from '../statuses/serialize.js';
import type { ActiveFilters } from '../filters/service.js';
import { RenderedAccounts } from './accounts.js';
import { StatusRenderRows } from './status-rows.js';
import { RenderedStatuses } from './statuses.js';
import { ResponseCache } from './response-cache.js';
import { ActiveFiltersCache } from './active-filters.js';

export class RenderCache {
  readonly accounts: RenderedAccounts;
  readonly statusRows: StatusRenderRows;
  readonly statuses = new RenderedStatuses<StatusJson>();
  readonly responses: ResponseCache;
  readonly activeFilters = new ActiveFiltersCache<ActiveFilters>();

  constructor(ctx: SocialContext) {
    this.accounts = new RenderedAccounts(new AccountsRepo(ctx), ctx.config.baseUrl);
    this.statusRows = new StatusRenderRows(new StatusesRepo(ctx));
    this.responses = new ResponseCache(ctx.reader);
  }
}
