/**
 * Values made from rows, kept by (id, render version): a row is read and made again only when its
 * version moved.
 */
import { BoundedMap } from './bounded-map.js';

/** A row as the versioned queries return it: null when the caller already holds that version. */
export interface ChangedRow<Row> {
  id: string;
  version: number;
  row: Row | null;
}

export interface Versioned<V> {
  version: number;
  value: V;
}

export class VersionedCache<Row, V> {
  private readonly byId: BoundedMap<string, Versioned<V>>;

  /** `make` turns a fetched row into the kept value (shared between requests: make it frozen). */
  constructor(
    private readonly make: (row: Row) => V,
    capacity: number,
  ) {
    this.byId = new BoundedMap(capacity);
  }

  /** The value held for `id`, whatever its version: a guess at what a load will answer, never an answer. */
  peek(id: string): V | undefined {
    return this.byId.get(id)?.value;
  }

  /**
   * The values for `ids` that still exist, each beside the answer it came with. `fetch` gets the
   * versions held (id → version, -1 for none) and returns rows only where a version moved.
   */
  async load<C extends ChangedRow<Row>>(
    ids: readonly string[],
    fetch: (known: Record<string, number>) => Promise<C[]>,
  ): Promise<Array<Versioned<V> & { changed: C }>> {
    if (ids.length === 0) return [];
    const held = this.hold(ids);
    return this.settle(held, await fetch(held.known));
  }

  /**
   * `load` in two halves, for a caller that reads several caches' rows at once: what is held for
   * `ids` (its `known` versions are what to fetch by), then the values once the rows came back.
   */
  hold(ids: readonly string[]): Held<V> {
    // What is held now answers even if a concurrent request evicts it before the rows come back.
    const entries = new Map<string, Versioned<V>>();
    const known: Record<string, number> = {};
    for (const id of ids) {
      const entry = this.byId.get(id);
      if (entry) entries.set(id, entry);
      known[id] = entry?.version ?? -1;
    }
    return { entries, known };
  }

  settle<C extends ChangedRow<Row>>(held: Held<V>, rows: readonly C[]): Array<Versioned<V> & { changed: C }> {
    const out: Array<Versioned<V> & { changed: C }> = [];
    for (const changed of rows) {
      const entry =
        changed.row === null
          ? held.entries.get(changed.id)
          : this.byId.set(changed.id, { version: changed.version, value: this.make(changed.row) });
      if (entry) out.push({ version: entry.version, value: entry.value, changed });
    }
    return out;
  }
}

/** What a cache held for some ids when their rows were asked for (`VersionedCache.hold`). */
export interface Held<V> {
  entries: Map<string, Versioned<V>>;
  /** id → version held, -1 for none. */
  known: Record<string, number>;
}
