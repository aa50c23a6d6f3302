/**
 * Mastodon-style snowflake ids: milliseconds since the Unix epoch shifted left 16 bits, plus a
 * sequence in the low 16 bits. They exceed 2^53, so they live as decimal strings (BigInt inside)
 * from SQL to JSON and never pass through a JavaScript number.
 */
const SEQUENCE_BITS = 16n;
const SEQUENCE_MAX = (1n << SEQUENCE_BITS) - 1n;

export class SnowflakeGenerator {
  private lastMs = 0n;
  private sequence = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  /** The next id: strictly greater than every id this generator made or observed. */
  next(): string {
    const ms = BigInt(this.now());
    if (ms > this.lastMs) {
      this.lastMs = ms;
      this.sequence = 0n;
    } else if (this.sequence < SEQUENCE_MAX) {
      this.sequence += 1n;
    } else {
      // 65,536 ids in one millisecond (or a clock that went back): borrow the next millisecond.
      this.lastMs += 1n;
      this.sequence = 0n;
    }
    return ((this.lastMs << SEQUENCE_BITS) | this.sequence).toString();
  }

  /** Makes later ids greater than one already stored (a clock set back across a restart). */
  observe(id: string | bigint): void {
    const value = BigInt(id);
    const ms = value >> SEQUENCE_BITS;
    const sequence = value & SEQUENCE_MAX;
    if (ms > this.lastMs || (ms === this.lastMs && sequence > this.sequence)) {
      this.lastMs = ms;
      this.sequence = sequence;
    }
  }
}

/** The smallest id of a given moment: for paging by time and for ids of imported objects. */
export function snowflakeAt(ms: number): string {
  return (BigInt(Math.trunc(ms)) << SEQUENCE_BITS).toString();
}

export function snowflakeTime(id: string): Date {
  return new Date(Number(BigInt(id) >> SEQUENCE_BITS));
}

const DECIMAL_ID = /^\d{1,19}$/;
const INT64_MAX = (1n << 63n) - 1n;

/** True for a decimal string that fits SQLite's INTEGER: safe to bind as an id. */
export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_ID.test(value) && BigInt(value) <= INT64_MAX;
}

/**
 * SQL for an id column read back as text. The sqlite3 driver turns INTEGER values into JS
 * numbers and rounds those above 2^53, so every snowflake column is selected through this.
 */
export function idText(column: string, alias = column.split('.').pop()!): string {
  return `CAST(${column} AS TEXT) AS ${alias}`;
}
