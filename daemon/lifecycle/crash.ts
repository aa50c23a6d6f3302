/**
 * An uncaught error leaves the daemon in an unknown state: log it and exit non-zero, so that
 * systemd (Restart=on-failure) starts a fresh one.
 */
import type { Logger } from '../log/logger.js';

export const CRASH_EXIT_CODE = 70;

export function installCrashHandlers(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception; exiting', { error });
    exit(CRASH_EXIT_CODE);
  });
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled promise rejection; exiting', { error: reason instanceof Error ? reason : String(reason) });
    exit(CRASH_EXIT_CODE);
  });
}
