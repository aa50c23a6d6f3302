/**
 * A serial line of a given baud rate (8N1: 10 bits per byte): bytes pass through no faster than the
 * line carries them. The pseudo-terminal under the simulator has no speed of its own; this gives it
 * the speed of the real UART, for throughput measurements.
 */
export class ThrottledLine {
  private freeAt = 0;
  private readonly msPerByte: number;

  constructor(
    baud: number,
    private readonly deliver: (chunk: Buffer) => void,
  ) {
    this.msPerByte = 10_000 / baud;
  }

  push(chunk: Buffer): void {
    const now = performance.now();
    this.freeAt = Math.max(now, this.freeAt) + chunk.length * this.msPerByte;
    const wait = this.freeAt - now;
    if (wait < 1) {
      this.deliver(chunk);
      return;
    }
    setTimeout(() => this.deliver(chunk), wait);
  }
}
