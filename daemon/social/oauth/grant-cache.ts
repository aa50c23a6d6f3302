/**
 * What each bearer token grants, kept while the database is unchanged: a request whose token was
 * resolved before and nothing committed since (the data version, read before the lookup as the
 * response cache reads it) skips the token's lookup, a turn through SQLite's threads. Any commit,
 * of this process or another (a revocation, an account disabled from the admin tool), makes every
 * entry stale, so a revoked token is refused at the next request. Only grants are kept: an unknown
 * or refused token is looked up each time, and cannot fill the map.
 */
import type { AuthContext } from '../../lib/grants.js';
import type { DataVersion } from '../../store/dialect.js';
import { BoundedMap } from '../render/bounded-map.js';
import type { Reader } from '../store/reader.js';

/** A home instance's signed-in clients are few; the bound only guards the heap. */
const MAX_TOKENS = 1000;

interface Entry {
  version: DataVersion;
  auth: AuthContext;
}

export class GrantCache {
  private readonly entries = new BoundedMap<string, Entry>(MAX_TOKENS);

  constructor(private readonly reader: Reader) {}

  /** The grant of the token hashed as `hash`: kept while fresh, else `lookup`'s (kept if a grant). */
  async resolve(hash: string, lookup: () => Promise<AuthContext | null>): Promise<AuthContext | null> {
    const version = await this.reader.dataVersion();
    const kept = this.entries.get(hash);
    if (kept && kept.version === version) return kept.auth;
    this.entries.delete(hash);
    const auth = await lookup();
    if (auth) this.entries.set(hash, { version, auth: Object.freeze(auth) });
    return auth;
  }
}
