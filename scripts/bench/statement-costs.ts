/**
 * `--statements` for the PostgreSQL benches: the server's own account of where a measurement's time
 * went, per statement (pg_stat_statements, with the triggers' statements tracked too): calls and
 * execution time per request, the costliest first.
 */
import pg from 'pg';

/** The server settings a cluster needs for statementCosts. */
export const STATEMENT_SETTINGS = ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'];

export class StatementCosts {
  private constructor(private readonly client: pg.Client) {}

  /** Counts from now on, in the database at `url` (of a cluster started with STATEMENT_SETTINGS). */
  static async start(url: string): Promise<StatementCosts> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    return new StatementCosts(client);
  }

  /** The `top` costliest statements since the start, per one of `requests`, as lines; then closes. */
  async report(requests: number, top = 25): Promise<string[]> {
    try {
      const { rows } = await this.client.query<{ query: string; calls: string; ms: number; top: boolean }>(
        `SELECT query, calls, total_exec_time AS ms, toplevel AS top FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC LIMIT $1`,
        [top],
      );
      return rows.map(
        (row) =>
          `${(row.ms / requests).toFixed(3).padStart(7)} ms ${(Number(row.calls) / requests).toFixed(2).padStart(5)} calls` +
          `${row.top ? '' : ' (nested)'}  ${row.query.replace(/\s+/g, ' ').slice(0, 150)}`,
      );
    } finally {
      await this.client.end();
    }
  }
}
