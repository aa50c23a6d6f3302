/**
 * `--statements` for the PostgreSQL benches: the server's own account of where a measurement's time
 * went, per statement (pg_stat_statements, with the triggers' statements tracked too): calls and
 * execution and planning time per request, the costliest first.
 */
import pg from 'pg';

/** The server settings a cluster needs for statementCosts. */
export const STATEMENT_SETTINGS = [
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track=all',
  'pg_stat_statements.track_planning=on',
];

export class StatementCosts {
  private constructor(
    private readonly client: pg.Client,
    private readonly startLsn: string,
  ) {}

  /** Counts from now on, in the database at `url` (of a cluster started with STATEMENT_SETTINGS). */
  static async start(url: string): Promise<StatementCosts> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    const { rows } = await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn');
    return new StatementCosts(client, rows[0].lsn);
  }

  /**
   * The write-ahead log written since the start and the `top` costliest statements, per one of
   * `requests`, as lines; then closes. The log's bytes (the whole cluster's) follow the rows
   * written, whatever else the machine runs.
   */
  async report(requests: number, top = 25): Promise<string[]> {
    try {
      const wal = await this.client.query<{ bytes: string }>(
        'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes',
        [this.startLsn],
      );
      const { rows } = await this.client.query<{
        query: string;
        calls: string;
        plans: string;
        ms: number;
        planMs: number;
        top: boolean;
      }>(
        `SELECT query, calls, plans, total_exec_time AS ms, total_plan_time AS "planMs", toplevel AS top FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time + total_plan_time DESC LIMIT $1`,
        [top],
      );
      const sent = await this.client.query<{ calls: string }>(
        `SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_statements
        WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      return [
        `write-ahead log: ${Math.round(Number(wal.rows[0].bytes) / requests)} bytes per request`,
        `statements sent: ${(Number(sent.rows[0].calls) / requests).toFixed(2)} per request`,
        ...rows.map(
          (row) =>
            `${(row.ms / requests).toFixed(3).padStart(7)} ms ${(row.planMs / requests).toFixed(3).padStart(7)} ms planning ` +
            `${(Number(row.calls) / requests).toFixed(2).padStart(5)} calls ${(Number(row.plans) / requests).toFixed(2).padStart(5)} plans` +
            `${row.top ? '' : ' (nested)'}  ${row.query.replace(/\s+/g, ' ').slice(0, 150)}`,
        ),
      ];
    } finally {
      await this.client.end();
    }
  }
}
