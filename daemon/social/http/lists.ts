/** Rendering of paged account lists (followers, blocks, follow requests…): accounts in page order plus Link. */
import type { Context } from 'koa';
import type { StatusRenderer } from '../statuses/serialize.js';
import { keep, setLink } from './pagination.js';
import type { PageQuery } from '../store/paging.js';
import type { Params } from './params.js';

export async function sendAccountPage(
  ctx: Context,
  renderer: StatusRenderer,
  baseUrl: string,
  p: Params,
  page: PageQuery,
  rows: Array<{ edge_id: string; account_id: string }>,
  hidden: Set<string> = new Set(),
): Promise<void> {
  const accounts = await renderer.accountsById(rows.map((row) => row.account_id));
  ctx.body = rows
    .filter((row) => !hidden.has(row.account_id))
    .map((row) => accounts.get(row.account_id))
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
