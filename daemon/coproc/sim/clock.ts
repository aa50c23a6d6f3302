/**
 * The simulator's clock: device time runs `timeScale` times faster than real time, so tests can
 * live through a 10-second heartbeat period or the 5-second reboot after OTA in milliseconds.
 * Every timer is tracked so a device reset (or shutting the simulator down) cancels them all.
 */
export class SimClock {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(public timeScale = 1) {
    if (!(timeScale > 0)) throw new RangeError(`time scale must be positive, not ${timeScale}`);
  }

  realMs(deviceMs: number): number {
    return deviceMs / this.timeScale;
  }

  after(deviceMs: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, this.realMs(deviceMs));
    this.timers.add(timer);
    return timer;
  }

  every(deviceMs: number, fn: () => void): NodeJS.Timeout {
    const timer = setInterval(fn, this.realMs(deviceMs));
    this.timers.add(timer);
    return timer;
  }

  cancel(timer: NodeJS.Timeout | null | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /** Resolves after `deviceMs` of device time, or never if the clock is cleared first. */
  sleep(deviceMs: number): Promise<void> {
    return new Promise((resolve) => this.after(deviceMs, resolve));
  }

  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
