/**
 * What the renderers keep between requests: a bounded map (the oldest entries go first), and on
 * it a cache of values made from rows by (id, render version), which reads a row again only when
 * its version moved.
 */

/** A Map that drops its oldest entry once `capacity` is reached. */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): V {
    if (!this.entries.has(key) && this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A row as the versioned queries return it: null when the caller already holds that version. */
export interface ChangedRow<Row> { id: string; version: number; row: Row | null }

export interface Versioned<V> { version: number; value: V }

export class VersionedCache<Row, V> {
  private readonly byId: BoundedMap<string, Versioned<V>>;

  /** `make` turns a fetched row into the kept value (shared between requests: make it frozen). */
  constructor(private readonly make: (row: Row) => V, capacity: number) {
    this.byId = new BoundedMap(capacity);
  }

  /**
   * The values for `ids` that still exist, each beside the answer it came with. `fetch` gets the
   * versions held (id → version, -1 for none) and returns rows only where a version moved.
   */
  async load<C extends ChangedRow<Row>>(ids: readonly string[], fetch: (known: Record<string, number>) => Promise<C[]>): Promise<Array<Versioned<V> & { changed: C }>> {
    if (ids.length === 0) return [];
    // What is held now answers even if a concurrent request evicts it before the rows come back.
    const held = new Map<string, Versioned<V>>();
    const known: Record<string, number> = {};
    for (const id of ids) {
      const entry = this.byId.get(id);
      if (entry) held.set(id, entry);
      known[id] = entry?.version ?? -1;
    }
    const out: Array<Versioned<V> & { changed: C }> = [];
    for (const changed of await fetch(known)) {
      const entry = changed.row === null ? held.get(changed.id) : this.byId.set(changed.id, { version: changed.version, value: this.make(changed.row) });
      if (entry) out.push({ version: entry.version, value: entry.value, changed });
    }
    return out;
  }
}
