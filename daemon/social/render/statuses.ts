/**
 * Status JSON kept by everything it was made from: the status's render version, the viewer's
 * flags, the render versions of its author and mentioned accounts, the reblogged original's key
 * and the viewer's filters. A key holds only while all of those do, so a hit is always what
 * rendering anew would give. Entries are frozen and pre-rendered (written verbatim into
 * responses). Bounded; the oldest go first.
 */
import { markRendered } from './json-text.js';
import { BoundedMap } from './bounded-map.js';

export class RenderedStatuses<T extends object> {
  private readonly byKey: BoundedMap<string, Readonly<T>>;

  constructor(capacity = 1000) {
    this.byKey = new BoundedMap(capacity);
  }

  get(key: string): Readonly<T> | undefined {
    return this.byKey.get(key);
  }

  /** Marks `json` as rendered (freezing it) and keeps it under `key`. */
  keep(key: string, json: T): Readonly<T> {
    return this.byKey.set(key, markRendered(json));
  }
}
