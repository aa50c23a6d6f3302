/**
 * The social API's reads on PostgreSQL: the same calls as the SQLite reader (daemon/social/store/
 * reader.ts) over a pool of its own, so reads run beside the writer's transactions. The SQL is the
 * repositories' one text for both engines: SQLite's `?` and `?N` placeholders become `$n` here.
 * The data version comes from the server's watch (`server-watch.ts`), not from a query.
 */
import pg from 'pg';
import type { Db } from './db.js';
import type { DataVersion } from './dialect.js';
import { serverWatchOf } from './postgres.js';
import type { ServerWatch } from './server-watch.js';

export type Row = Record<string, unknown>;
export type Params = Array<string | number | null>;

/** `?` (the next parameter) and `?N` (parameter N) as PostgreSQL's `$N`, outside quoted text. */
export function numberedPlaceholders(sql: string): string {
  let next = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?(\d+)?/g, (match, number: string | undefined) => {
    if (match[0] === "'" || match[0] === '"') return match;
    return `$${number ?? ++next}`;
  });
}

export class PostgresReader {
  readonly engine = 'postgres';
  private readonly texts = new Map<string, string>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly watch: ServerWatch,
    private readonly release: () => Promise<void>,
  ) {}

  /** A pool with the writer's connection settings (and its row shapes), and the server's watch for the data version. */
  static async open(db: Db, size = 4): Promise<PostgresReader> {
    const connection = (db.client as { config: { connection: pg.PoolConfig } }).config.connection;
    const pool = new pg.Pool({ ...connection, max: size });
    // An idle connection the server dropped: the pool discards it; the next query opens another.
    pool.on('error', () => undefined);
    const watch = serverWatchOf(db);
    return new PostgresReader(pool, watch, await watch.acquire());
  }

  async all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    let text = this.texts.get(sql);
    if (text === undefined) {
      // Statements built from user-chosen filter sets stay few; still, never grow without bound.
      if (this.texts.size > 500) this.texts.clear();
      text = numberedPlaceholders(sql);
      this.texts.set(sql, text);
    }
    const result = await this.pool.query(text, params);
    return result.rows as T[];
  }

  async get<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Kept current by the watch (this process's commits, other processes' announcements): no query. */
  async dataVersion(): Promise<DataVersion> {
    return this.watch.version;
  }

  async close(): Promise<void> {
    await this.release();
    await this.pool.end();
  }
}
