/**
 * Deliveries done are removed from the queue in batches: one statement removes every one that
 * ended while the previous statement was on its way (none waits for a timer; alone, a delivery is
 * removed at once). Each caller's promise settles when the statement that removed its delivery
 * has, so a delivery stays the queue's own (in flight, never claimed again) until it is gone.
 */
export class DoneBatches {
  private next: number[] = [];
  private nextRemoved: Promise<void> | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly removeAll: (ids: readonly number[]) => Promise<void>) {}

  /** Removes delivery `id` with whatever else ends meanwhile. */
  remove(id: number): Promise<void> {
    this.next.push(id);
    this.nextRemoved ??= this.afterRunning();
    return this.nextRemoved;
  }

  /** The batch being gathered, sent once the statement before it has answered. */
  private async afterRunning(): Promise<void> {
    await this.running?.catch(() => undefined);
    const ids = this.next;
    this.next = [];
    this.nextRemoved = null;
    this.running = this.removeAll(ids);
    await this.running;
  }
}
