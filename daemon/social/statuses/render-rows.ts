/**
 * Status render rows kept by (id, render version): a status shown again unchanged (the same
 * favourited posts on every notification page) is not read, sent or parsed again; only the
 * viewer's flags are. Triggers move a status's version on any change to its row, mentions, media
 * or hashtags. The rows are shared between requests: never modify one. Bounded; oldest first.
 */
import type { ChangedRenderRow, RenderRow, StatusesRepo } from './repo.js';

interface Entry { version: number; row: Readonly<RenderRow> }

export interface LoadedStatus { row: Readonly<RenderRow>; version: number; flags: number }

export class StatusRenderRows {
  private readonly byId = new Map<string, Entry>();

  constructor(private readonly repo: StatusesRepo, private readonly capacity = 4000) {}

  /** The statuses that exist among `ids`, with the viewer's flags. */
  async load(ids: readonly string[], viewerId: string | null): Promise<LoadedStatus[]> {
    if (ids.length === 0) return [];
    // What is held now answers even if a concurrent request evicts it before the rows come back.
    const held = new Map<string, Entry>();
    const known: Record<string, number> = {};
    for (const id of ids) {
      const entry = this.byId.get(id);
      if (entry) held.set(id, entry);
      known[id] = entry?.version ?? -1;
    }
    const out: LoadedStatus[] = [];
    for (const changed of await this.repo.renderRows(known, viewerId)) {
      const entry = changed.row === null ? held.get(changed.id) : this.store(changed.id, changed.version, changed.row);
      if (entry) out.push({ row: entry.row, version: entry.version, flags: changed.flags });
    }
    return out;
  }

  private store(id: string, version: number, changed: NonNullable<ChangedRenderRow['row']>): Entry {
    const mentionIds = typeof changed.mention_ids === 'string' ? JSON.parse(changed.mention_ids) as string[] : changed.mention_ids;
    const entry = { version, row: Object.freeze({ ...changed, mention_ids: mentionIds }) };
    if (!this.byId.has(id) && this.byId.size >= this.capacity) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(id, entry);
    return entry;
  }
}
