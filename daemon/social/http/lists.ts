/** Rendering of paged account lists (followers, blocks, follow requests…): accounts in page order plus Link. */
import type { Context } from 'koa';
import { keep, setLink } from './pagination.js';
import type { PageQuery } from '../store/paging.js';
import type { Params } from './params.js';

/** What renders the accounts (the status renderer, which keeps them rendered). */
export interface AccountRenderer {
  accountsById(ids: readonly string[]): Promise<Map<string, object>>;
}

export async function sendAccountPage(
  ctx: Context,
  renderer: AccountRenderer,
  baseUrl: string,
  p: Params,
  page: PageQuery,
  rows: Array<{ edge_id: string; account_id: string; mute_expires_at?: string | null }>,
  hidden: Set<string> = new Set(),
): Promise<void> {
  const accounts = await renderer.accountsById(rows.map((row) => row.account_id));
  ctx.body = rows
    .filter((row) => !hidden.has(row.account_id))
    .map((row) => {
      const account = accounts.get(row.account_id);
      // Mastodon's list of mutes says when each ends.
      return account && row.mute_expires_at !== undefined
        ? { ...account, mute_expires_at: row.mute_expires_at }
        : account;
    })
    .filter(Boolean);
  if (rows.length) {
    setLink(ctx, {
      baseUrl,
      path: ctx.path,
      kept: keep(p, ['limit']),
      nextMaxId: rows.length === page.limit ? rows[rows.length - 1].edge_id : null,
      prevMinId: rows[0].edge_id,
    });
  }
}
