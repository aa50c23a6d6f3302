/**
 * Status JSON kept by everything it was made from: the status's render version, the viewer's
 * flags, the render versions of its author and mentioned accounts, the reblogged original's key
 * and the viewer's filters. A key holds only while all of those do, so a hit is always what
 * rendering anew would give. Entries are frozen and pre-rendered (written verbatim into
 * responses). Bounded; the oldest go first.
 */
import { markRendered } from '../../http/json-text.js';

export class RenderedStatuses<T extends object> {
  private readonly byKey = new Map<string, Readonly<T>>();

  constructor(private readonly capacity = 1000) {}

  get(key: string): Readonly<T> | undefined {
    return this.byKey.get(key);
  }

  /** Marks `json` as rendered (freezing it) and keeps it under `key`. */
  keep(key: string, json: T): Readonly<T> {
    const rendered = markRendered(json);
    if (!this.byKey.has(key) && this.byKey.size >= this.capacity) this.byKey.delete(this.byKey.keys().next().value!);
    this.byKey.set(key, rendered);
    return rendered;
  }
}
