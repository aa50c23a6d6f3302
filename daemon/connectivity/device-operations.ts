/**
 * The one line of operations to the coprocessor. The control protocol answers one request at a
 * time and the machine's effects, the owner's commands and a firmware update all share the radio,
 * so every device operation waits its turn here, in the order asked.
 */
import { CoprocError } from '../coproc/api.js';
import type { LogFields, Logger } from '../log/logger.js';

export class DeviceOperations {
  private queue: Promise<void> = Promise.resolve();

  /** Runs `operation` after every one asked before it; its result or error is the caller's. */
  run<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Resolves when the operations asked so far are done, or after `graceMs`: one may block for
   * minutes (a ConnectAP retrying) and shutdown does not wait that long.
   */
  async settled(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.queue, grace]);
    clearTimeout(timer);
  }
}

/** A device error in one line for logs and for the person who asked: operation, message, kind, code. */
export function describeDeviceError(error: unknown): string {
  if (error instanceof CoprocError)
    return `${error.operation}: ${error.message} (${error.kind}${error.code !== null ? ` ${error.code}` : ''})`;
  return error instanceof Error ? error.message : String(error);
}

/** False once a restart, a loss or the daemon's stop has moved past `epoch`: a failure then is expected. */
export type EpochCurrent = (epoch: number) => boolean;

/** An operation's failure and, when the machine has moved past its epoch, what it is instead. */
export interface FailureLines {
  failed: string;
  cutShort: string;
}

/**
 * Logs an operation's failure: a warning while its epoch is current, info once a chip restart, a
 * loss or the daemon's stop has moved past it (those cut operations short on purpose, and the
 * machine carries on from them).
 */
export function logDeviceFailure(log: Logger, current: boolean, lines: FailureLines, fields: LogFields): void {
  if (current) log.warn(lines.failed, fields);
  else log.info(lines.cutShort, fields);
}
