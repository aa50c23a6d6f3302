/**
 * Status render rows kept by (id, render version): a status shown again unchanged (the same
 * favourited posts on every notification page) is not read, sent or parsed again; only the
 * viewer's flags are. Triggers move a status's version on any change to its row, mentions, media
 * or hashtags. The rows are shared between requests: never modify one.
 */
import { VersionedCache, type Held } from './versioned-cache.js';
import type { ChangedRenderRow, RenderRow } from '../statuses/repo.js';
import type { StatusRenderRowsRepo } from '../statuses/render-rows-repo.js';

/** `visible`: whether the viewer may see the status (statuses/visibility.ts), asked afresh each time as the flags are. */
export interface LoadedStatus {
  row: Readonly<RenderRow>;
  version: number;
  flags: number;
  visible: boolean;
}

type FetchedRow = NonNullable<ChangedRenderRow['row']>;

export class StatusRenderRows {
  private readonly cache = new VersionedCache<FetchedRow, Readonly<RenderRow>>(
    (row) =>
      Object.freeze({
        ...row,
        mention_ids: typeof row.mention_ids === 'string' ? (JSON.parse(row.mention_ids) as string[]) : row.mention_ids,
      }),
    4000,
  );

  constructor(private readonly repo: StatusRenderRowsRepo) {}

  /**
   * The accounts the rows held for `ids` name (authors and mentions, those of a reblogged original
   * held too), at whatever version they are held: what rendering them will most likely need, so
   * those accounts can be asked for while the rows themselves are checked.
   */
  heldAccountIds(ids: readonly string[]): string[] {
    const out: string[] = [];
    const add = (id: string) => {
      const row = this.cache.peek(id);
      if (row) out.push(row.account_id, ...row.mention_ids);
      return row;
    };
    for (const id of ids) {
      const original = add(id)?.reblog_of_id;
      if (original) add(original);
    }
    return out;
  }

  /** The statuses that exist among `ids`, with the viewer's flags and whether the viewer may see them. */
  async load(ids: readonly string[], viewerId: string | null): Promise<LoadedStatus[]> {
    if (ids.length === 0) return [];
    const held = this.hold(ids);
    return this.settle(held, await this.repo.renderRows(held.known, viewerId));
  }

  /** What is held for `ids`: `load`'s first half, for a read beside another cache's (render/cache.ts). */
  hold(ids: readonly string[]): Held<Readonly<RenderRow>> {
    return this.cache.hold(ids);
  }

  settle(held: Held<Readonly<RenderRow>>, rows: readonly ChangedRenderRow[]): LoadedStatus[] {
    return this.cache.settle(held, rows).map(({ value, version, changed }) => ({
      row: value,
      version,
      flags: changed.flags,
      visible: Boolean(changed.visible),
    }));
  }
}
