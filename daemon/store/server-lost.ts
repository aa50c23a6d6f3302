/**
 * Errors that say the PostgreSQL server is gone or does not answer, as opposed to a refusal of the
 * request itself: a request that meets one answers 503 with Retry-After (the server may be back in
 * a moment, nothing was written), and the start keeps waiting for the server while it sees them.
 */

/** Socket errors: nobody listens there (yet), or the connection broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away: class 08 (connection exception), 57P01-57P03 (an
 * administrator's shutdown, a crash shutdown, not accepting connections yet), 53300 (no free
 * connection slot). Anything else is about the request, not the server.
 */
function lostState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** What node-postgres and knex say when a connection dies or none can be had in time. */
const LOST_MESSAGE =
  /Connection terminated|terminating connection|Client has encountered a connection error|Connection ended unexpectedly|timeout exceeded when trying to connect|Timeout acquiring a connection|Query read timeout|the database system is (starting up|shutting down)/i;

export function serverLost(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  // A missing socket file is the server's only when connecting (not a media file gone missing).
  const connecting = code !== 'ENOENT' || (error as { syscall?: unknown }).syscall === 'connect';
  if (typeof code === 'string' && connecting && (SOCKET_CODES.has(code) || lostState(code))) return true;
  if ((error as { name?: unknown }).name === 'KnexTimeoutError') return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && LOST_MESSAGE.test(message);
}
