/**
 * Each account's active filters, kept in memory. Every status rendered for a signed-in viewer
 * needs them (its `filtered`, and its place in the rendered-status cache), so without this every
 * timeline or notifications page paid a query for a list that seldom changes. Filters change only
 * through FiltersService (no other code and no other process writes them), which forgets an
 * account's entry on every change; an entry also lapses when its first filter expires.
 */
import { BoundedMap } from './bounded-map.js';

export interface Loaded<T> {
  value: T;
  /** When the value stops being true (ms since the epoch): its first expiry, or Infinity. */
  until: number;
}

export class ActiveFiltersCache<T> {
  private readonly entries: BoundedMap<string, Loaded<T>>;
  /** Moves on every change: a value read while one happened may predate it and is not kept. */
  private generation = 0;

  constructor(maxEntries = 1000) {
    this.entries = new BoundedMap(maxEntries);
  }

  async get(accountId: string, now: number, load: () => Promise<Loaded<T>>): Promise<T> {
    const kept = this.entries.get(accountId);
    if (kept && now < kept.until) return kept.value;
    const generation = this.generation;
    const loaded = await load();
    if (generation === this.generation) this.entries.set(accountId, loaded);
    return loaded.value;
  }

  forget(accountId: string): void {
    this.generation += 1;
    this.entries.delete(accountId);
  }

  get size(): number {
    return this.entries.size;
  }
}
