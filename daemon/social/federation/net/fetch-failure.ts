/** Telling a peer's failure (its answer, or the network) from our own faults. */
import { PeerHttpError } from './client.js';

/** Errors of reaching a peer (its answer, or the network), as opposed to our own faults. */
export function isFetchFailure(error: unknown): boolean {
  return (
    error instanceof PeerHttpError ||
    (error instanceof Error &&
      typeof (error as NodeJS.ErrnoException).code === 'string' &&
      /^E[A-Z]+/.test((error as NodeJS.ErrnoException).code!))
  );
}
