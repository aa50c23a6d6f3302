/** Doubling waits between failed attempts, from `firstMs` up to `maxMs`; reset by a success. */
export class Backoff {
  private failures = 0;
  private nextAt = 0;

  constructor(
    private readonly firstMs: number,
    private readonly maxMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  due(): boolean {
    return this.now() >= this.nextAt;
  }

  /** When the next attempt may run (ms since the epoch). */
  get nextAttemptAt(): number {
    return this.nextAt;
  }

  failed(): void {
    this.failures += 1;
    this.nextAt = this.now() + Math.min(this.maxMs, this.firstMs * 2 ** (this.failures - 1));
  }

  reset(): void {
    this.failures = 0;
    this.nextAt = 0;
  }
}
