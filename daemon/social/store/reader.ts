/**
 * Read-only SQLite connections for the social API's reads, with prepared statements kept per SQL
 * text: hot paths (token lookup, notification pages) skip knex's re-preparing, and reads run
 * beside the writer connection (WAL). Writes never go through here; they use knex transactions.
 * Every statement is run with all() so it is reset at once and holds no read snapshot open.
 */
import sqlite3 from 'sqlite3';
import type { Db } from '../../store/db.js';
import { engineOf, type DataVersion, type Engine } from '../../store/dialect.js';
import { WalIndex } from './wal-index.js';

export type Row = Record<string, unknown>;
export type Params = Array<string | number | null>;

/** The social API's read connections, on either engine: the SQL is the same for both. */
export interface Reader {
  /** Which engine answers: the store's SQL builders that differ by engine pick their text by it. */
  readonly engine: Engine;
  all<T = Row>(sql: string, params?: Params): Promise<T[]>;
  get<T = Row>(sql: string, params?: Params): Promise<T | undefined>;
  /**
   * `all` for a statement whose best plan depends on its values (a search for a word in many rows
   * walks the newest rows, for a rare word reads the index's matches): planned for the values on
   * every call, where PostgreSQL would settle on one plan blind to them for a prepared statement.
   */
  allPlannedPerCall<T = Row>(sql: string, params?: Params): Promise<T[]>;
  /** Changes whenever any connection or process commits (the response cache's key). */
  dataVersion(): Promise<DataVersion>;
  close(): Promise<void>;
}

/** The reader for `db`'s engine: SQLite's opens `filename` again read-only; PostgreSQL's is a pool of its own. */
export async function openReader(db: Db, filename: string): Promise<Reader> {
  if (engineOf(db) === 'sqlite') return SqliteReader.open(filename);
  const { PostgresReader } = await import('../../store/postgres-reader.js');
  return PostgresReader.open(db);
}

/** One read-only connection with its prepared statements and a count of queries in flight. */
class Connection {
  readonly statements = new Map<string, sqlite3.Statement>();
  busy = 0;
  constructor(readonly db: sqlite3.Database) {}
}

/**
 * A small pool of read-only connections, one per thread of libuv's pool (two at least): one
 * connection runs one statement at a time; more connections than threads would only wait.
 */
export class SqliteReader implements Reader {
  readonly engine = 'sqlite';
  /** The data_version query the callers of this turn of the event loop wait for, until it is sent. */
  private versionAsked: Promise<number> | null = null;

  /** Where the data version is read without a statement (null: not in WAL mode, or not yet opened). */
  private walIndex: WalIndex | null = null;

  private constructor(private readonly connections: Connection[]) {}

  static async open(
    filename: string,
    size = Math.max(2, Number(process.env.UV_THREADPOOL_SIZE) || 2),
    busyTimeoutMs = 5000,
  ): Promise<SqliteReader> {
    const open = () =>
      new Promise<Connection>((resolve, reject) => {
        const db = new sqlite3.Database(filename, sqlite3.OPEN_READONLY, (error) => {
          if (error) return reject(error);
          db.configure('busyTimeout', busyTimeoutMs);
          // The page queries materialize small CTEs (the grouped walk, its groups): a temp file's
          // pager for each is set-up work on every page. Reads are paged, so what they keep in
          // memory stays small.
          db.exec('PRAGMA temp_store = MEMORY', (pragmaError) =>
            pragmaError ? reject(pragmaError) : resolve(new Connection(db)),
          );
        });
      });
    const connections: Connection[] = [];
    for (let i = 0; i < size; i++) connections.push(await open());
    const reader = new SqliteReader(connections);
    // A first read maps the WAL index into this process and holds it while the reader lives, so
    // the file opened below stays the one every writer updates.
    await reader.askDataVersion();
    reader.walIndex = WalIndex.open(filename);
    return reader;
  }

  all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    const connection = this.connections.reduce((best, next) => (next.busy < best.busy ? next : best));
    const statement = this.prepare(connection, sql);
    connection.busy += 1;
    return new Promise((resolve, reject) => {
      statement.all(params, (error: Error | null, rows: T[]) => {
        connection.busy -= 1;
        if (error) reject(error);
        else resolve(rows);
      });
    });
  }

  async get<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }

  /** SQLite plans a statement without looking at its bound values: the prepared one serves. */
  allPlannedPerCall<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    return this.all<T>(sql, params);
  }

  /**
   * A value that changes whenever any other connection (the writer, another process) commits:
   * read from the WAL index on this thread, no statement; where it cannot say, SQLite's
   * data_version (the two kinds never compare equal, so a switch only costs a miss).
   */
  dataVersion(): Promise<DataVersion> {
    const version = this.walIndex?.version();
    return version ? Promise.resolve(version) : this.askDataVersion();
  }

  /**
   * SQLite's data_version, always asked of the same connection so values compare. The callers of
   * one turn of the event loop share one query, sent once all of them have asked: it sees every
   * commit made before any of them asked, and a burst of callers costs one round trip.
   */
  private askDataVersion(): Promise<number> {
    this.versionAsked ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        this.versionAsked = null;
        const connection = this.connections[0];
        const statement = this.prepare(connection, 'PRAGMA data_version');
        connection.busy += 1;
        statement.all([], (error: Error | null, rows: Array<{ data_version: number }>) => {
          connection.busy -= 1;
          if (error) reject(error);
          else resolve(rows[0].data_version);
        });
      });
    });
    return this.versionAsked;
  }

  private prepare(connection: Connection, sql: string): sqlite3.Statement {
    let statement = connection.statements.get(sql);
    if (!statement) {
      // Statements built from user-chosen filter sets stay few; still, never grow without bound.
      if (connection.statements.size > 500) clearCache(connection);
      statement = connection.db.prepare(sql);
      connection.statements.set(sql, statement);
    }
    return statement;
  }

  async close(): Promise<void> {
    this.walIndex?.close();
    for (const connection of this.connections) {
      clearCache(connection);
      await new Promise<void>((resolve, reject) => connection.db.close((error) => (error ? reject(error) : resolve())));
    }
  }
}

function clearCache(connection: Connection): void {
  for (const statement of connection.statements.values()) statement.finalize();
  connection.statements.clear();
}
