/**
 * `move-to-postgres` at scale: the notifications benchmark's data set (1,000 accounts, 2,000
 * statuses, N notifications; default 1,000,000) seeded into SQLite, then moved into a throwaway
 * PostgreSQL cluster as the admin tool moves it (schema, batched copy, sequences, row counts and
 * checksums read back). Prints the move's time and rows per second.
 *
 *   npm run bench -- move [--rows 1000000] [--batch-rows 5000]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../../daemon/config.js';
import { tempDir } from '../../test/helpers/paths.js';
import type { Bench } from './index.js';
import { seed } from './notifications-seed.js';
import { BenchCluster } from './postgres-cluster.js';
import { report, round } from './stats.js';

export const bench: Bench = {
  description: 'move-to-postgres of the notifications data set (1,000,000 rows) into a throwaway cluster',
  run,
};

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { rows: { type: 'string' }, 'batch-rows': { type: 'string' } } });
  const rows = Number(values.rows ?? 1_000_000);
  const batchRows = Number(values['batch-rows'] ?? 5000);
  const dir = tempDir('nestbox-bench-');
  const cluster = await BenchCluster.start();
  try {
    const env = { NESTBOX_DATA_DIR: dir.path, NESTBOX_BASE_URL: 'http://127.0.0.1:9' };
    const seeded = Date.now();
    await seed(loadConfig({ env }), rows, rows);
    process.stderr.write(`[bench] ${rows} notifications seeded in ${Date.now() - seeded} ms\n`);
    const cpu = process.cpuUsage();
    const moved = await cluster.moveFrom(dir.path, batchRows);
    const { user, system } = process.cpuUsage(cpu);
    report('move', [
      // The command's own CPU (reading SQLite, checksums, building the batches); the server's is apart.
      { metric: 'move_cpu_us_per_row', value: round((user + system) / moved.rows, 1), unit: 'µs' },
      { metric: 'rows_moved', value: moved.rows, unit: 'rows' },
      { metric: 'move_s', value: round(moved.ms / 1000, 1), unit: 's' },
      { metric: 'move_rows_per_s', value: Math.round(moved.rows / (moved.ms / 1000)), unit: 'rows/s' },
    ]);
  } finally {
    await cluster.stop();
    dir.remove();
  }
}
