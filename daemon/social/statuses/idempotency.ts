/**
 * Idempotency-Key for posting (Mastodon keeps one per account for an hour): a client that
 * retries a request it saw fail gets the status it already made instead of a duplicate.
 */
const TTL_MS = 3600_000;
const MAX_KEYS = 10_000;

export class IdempotencyKeys {
  private readonly keys = new Map<string, { statusId: string; until: number }>();

  constructor(private readonly now: () => number) {}

  get(accountId: string, key: string | undefined): string | null {
    if (!key) return null;
    const entry = this.keys.get(`${accountId}:${key}`);
    if (!entry || entry.until < this.now()) return null;
    return entry.statusId;
  }

  remember(accountId: string, key: string | undefined, statusId: string): void {
    if (!key) return;
    if (this.keys.size >= MAX_KEYS) this.prune();
    this.keys.set(`${accountId}:${key.slice(0, 200)}`, { statusId, until: this.now() + TTL_MS });
  }

  private prune(): void {
    const now = this.now();
    for (const [key, entry] of this.keys) if (entry.until < now) this.keys.delete(key);
    // Still full: forget the oldest half (insertion order).
    if (this.keys.size >= MAX_KEYS)
      [...this.keys.keys()].slice(0, MAX_KEYS / 2).forEach((key) => this.keys.delete(key));
  }
}
