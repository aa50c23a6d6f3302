/**
 * Recognises a write that failed because the data disk is full or over quota, whoever reported
 * it: SQLite (SQLITE_FULL, also inside knex's message), PostgreSQL (SQLSTATE 53100 disk_full: its
 * message is in the server's language), Node's fs (ENOSPC, EDQUOT) or libvips through sharp (only
 * a message).
 */
const CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);
const MESSAGES = /SQLITE_FULL|database or disk is full|ENOSPC|EDQUOT|No space left on device|Disk quota exceeded/i;

export function isOutOfSpace(error: unknown): boolean {
  let current = error;
  // Wrappers (knex, formidable, koa-body) keep the original as `cause` or `originalError`.
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && CODES.has(code)) return true;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
    const wrapper = current as { cause?: unknown; originalError?: unknown };
    current = wrapper.cause ?? wrapper.originalError;
  }
  return false;
}

export const OUT_OF_SPACE_MESSAGE =
  "The box's storage is full, so nothing was saved. Free some space (old media, backups) and try again.";

/** An error that isOutOfSpace() recognises, for a short write found after the fact. */
export function outOfSpaceError(detail: string): Error {
  return Object.assign(new Error(`ENOSPC: ${detail}`), { code: 'ENOSPC' });
}
