/**
 * The admin tool's `move-to-postgres URL`: progress and refusals on stderr (the URL without its
 * login), and as the last line on stdout the setting to add, the one place the password appears.
 */
import type { Config } from '../../daemon/config.js';
import { withoutCredentials } from '../../daemon/store/database-url.js';
import { MoveRefused } from '../../daemon/store/move/refusal.js';
import { moveToPostgres } from '../../daemon/store/move/move.js';
import { sqliteFile } from '../../daemon/store/open.js';

export async function moveCommand(config: Config, url: string, batchRows: number): Promise<number> {
  if (config.databaseUrl) {
    process.stderr.write(
      `admin: the daemon's settings already name a PostgreSQL database (${withoutCredentials(config.databaseUrl)}): unset NESTBOX_DATABASE_URL to move the SQLite file\n`,
    );
    return 1;
  }
  const started = Date.now();
  try {
    const moved = await moveToPostgres({
      sqliteFile: sqliteFile(config),
      url,
      batchRows,
      progress: (line) => process.stderr.write(`move: ${line}\n`),
    });
    const rows = moved.reduce((sum, table) => sum + table.rows, 0);
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write(
      `move: ${moved.length} tables, ${rows} rows in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 0.001))} rows/s), counts and checksums verified\n` +
        `move: set the line below in the daemon's environment (or database_url in its settings file) and start it; the SQLite file stays as it was\n`,
    );
    process.stdout.write(`NESTBOX_DATABASE_URL=${url}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof MoveRefused)) throw error;
    process.stderr.write(`admin: move-to-postgres: ${error.message}\n`);
    for (const line of error.details) process.stderr.write(`  ${line}\n`);
    return 1;
  }
}
