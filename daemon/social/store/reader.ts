/**
 * A second SQLite connection for the social API's reads, with prepared statements kept per SQL
 * text: hot paths (token lookup, notification pages) skip knex's re-preparing, and reads run
 * beside the writer connection (WAL). Writes never go through here; they use knex transactions.
 * Every statement is run with all() so it is reset at once and holds no read snapshot open.
 */
import sqlite3 from 'sqlite3';

export type Row = Record<string, unknown>;
export type Params = Array<string | number | null>;

export class Reader {
  private readonly statements = new Map<string, sqlite3.Statement>();

  private constructor(private readonly db: sqlite3.Database) {}

  static open(filename: string, busyTimeoutMs = 5000): Promise<Reader> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(filename, sqlite3.OPEN_READONLY, (error) => {
        if (error) return reject(error);
        db.configure('busyTimeout', busyTimeoutMs);
        resolve(new Reader(db));
      });
    });
  }

  all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    const statement = this.prepare(sql);
    return new Promise((resolve, reject) => {
      statement.all(params, (error: Error | null, rows: T[]) => (error ? reject(error) : resolve(rows)));
    });
  }

  async get<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }

  /**
   * The rows of `sql` built into one JSON array by SQLite itself: for wide or long results this
   * is several times faster than the driver making a JS value of every cell. `columns` names the
   * result columns of `sql`; integers above 2^53 must already be text (CAST) in `sql`.
   */
  async allJson<T = Row>(sql: string, columns: readonly string[], params: Params = []): Promise<T[]> {
    const object = columns.map((name) => `'${name}', q.${name}`).join(', ');
    const rows = await this.all<{ j: string }>(`SELECT json_group_array(json_object(${object})) AS j FROM (${sql}) AS q`, params);
    return JSON.parse(rows[0]?.j ?? '[]') as T[];
  }

  private prepare(sql: string): sqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      // Statements built from user-chosen filter sets stay few; still, never grow without bound.
      if (this.statements.size > 500) this.clearCache();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private clearCache(): void {
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
  }

  close(): Promise<void> {
    this.clearCache();
    return new Promise((resolve, reject) => this.db.close((error) => (error ? reject(error) : resolve())));
  }
}
