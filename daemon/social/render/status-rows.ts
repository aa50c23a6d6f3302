/**
 * Status render rows kept by (id, render version): a status shown again unchanged (the same
 * favourited posts on every notification page) is not read, sent or parsed again; only the
 * viewer's flags are. Triggers move a status's version on any change to its row, mentions, media
 * or hashtags. The rows are shared between requests: never modify one.
 */
import { VersionedCache } from './versioned-cache.js';
import type { ChangedRenderRow, RenderRow, StatusesRepo } from '../statuses/repo.js';

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

  constructor(private readonly repo: StatusesRepo) {}

  /** The statuses that exist among `ids`, with the viewer's flags and whether the viewer may see them. */
  async load(ids: readonly string[], viewerId: string | null): Promise<LoadedStatus[]> {
    const loaded = await this.cache.load(ids, (known) => this.repo.renderRows(known, viewerId));
    return loaded.map(({ value, version, changed }) => ({
      row: value,
      version,
      flags: changed.flags,
      visible: Boolean(changed.visible),
    }));
  }
}
