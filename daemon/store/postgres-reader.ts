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
  /** Each repository text's PostgreSQL form and the name it is prepared under on the connections. */
  private readonly statements = new Map<string, { name: string; text: string }>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly watch: ServerWatch,
    private readonly release: () => Promise<void>,
    private readonly maxNamed: number,
  ) {}

  /**
   * A pool with the writer's connection settings (and its row shapes) and idle time, and the
   * server's watch for the data version; at most `maxNamed` texts prepared.
   */
  static async open(db: Db, size = 4, maxNamed = 500): Promise<PostgresReader> {
    const { connection, pool: writerPool } = (
      db.client as { config: { connection: pg.PoolConfig; pool: { idleTimeoutMillis: number } } }
    ).config;
    const pool = new pg.Pool({ ...connection, max: size, idleTimeoutMillis: writerPool.idleTimeoutMillis });
    // An idle connection the server dropped: the pool discards it; the next query opens another.
    pool.on('error', () => undefined);
    const watch = serverWatchOf(db);
    return new PostgresReader(pool, watch, await watch.acquire(), maxNamed);
  }

  /**
   * A named (prepared) statement per text: each connection parses and plans it once, where an
   * unnamed one is planned on every call (the grouped page's recursive CTE took longer to plan than
   * to run).
   */
  async all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      // Statements built from user-chosen filter sets stay few; still, never grow without bound.
      // Past the bound new texts go unnamed: a connection keeps every statement it prepared, so
      // names dropped and made again for the same texts would pile up on the server.
      if (this.statements.size >= this.maxNamed) return this.allPlannedPerCall(sql, params);
      statement = { name: `nestbox_${this.statements.size + 1}`, text: numberedPlaceholders(sql) };
      this.statements.set(sql, statement);
    }
    const result = await this.pool.query({ ...statement, values: params });
    return result.rows as T[];
  }

  async get<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** An unnamed statement: the server plans it for the values of each call (a custom plan). */
  async allPlannedPerCall<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    const result = await this.pool.query({ text: numberedPlaceholders(sql), values: params });
    return result.rows as T[];
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
