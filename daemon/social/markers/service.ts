/** Read markers for the home and notifications timelines (the unread counts read the latter). */
import { conflict } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { MarkersRepo, type MarkerRow } from './repo.js';

export const TIMELINES = ['home', 'notifications'] as const;

export interface MarkerUpdate {
  timeline: string;
  lastReadId: string;
  version: number | null;
}

export class MarkersService {
  private readonly repo: MarkersRepo;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new MarkersRepo(ctx);
  }

  get(accountId: string, timelines: string[]): Promise<MarkerRow[]> {
    const known = timelines.filter((t) => (TIMELINES as readonly string[]).includes(t));
    return known.length ? this.repo.list(accountId, known) : Promise.resolve([]);
  }

  /** Saves each marker; a stale version (another client moved it) is 409. */
  async save(accountId: string, updates: MarkerUpdate[]): Promise<MarkerRow[]> {
    const saved: MarkerRow[] = [];
    for (const update of updates) {
      const row = await this.repo.save(accountId, update.timeline, update.lastReadId, update.version);
      if (!row) throw conflict('Conflict during update, please try again');
      saved.push(row);
      this.ctx.events.emit('marker.updated', { accountId, timeline: update.timeline });
    }
    return saved;
  }
}
