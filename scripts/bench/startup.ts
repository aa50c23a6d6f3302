/**
 * Start-up: time from process start to READY=1 (through a real notify socket), the CPU time the
 * daemon used until then, and RSS 300 ms after it, with an empty database and with a 100 MB one.
 * Targets (empty database): READY p50 ≤ 350 ms, RSS ≤ 80 MB (on `--budget pi`, READY ≤ 1.5 s); the same stack alone, loaded and
 * listening, is the floor (docs/performance-floors.md). CPU time to READY counts only the daemon's
 * own work, so it moves less than the wall clock when others load the machine. `--callgrind`: one
 * more start of each database under valgrind counts the instructions to READY (callgrind.ts), the
 * figure to compare builds by on a busy machine.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { startNotifyListener } from '../../test/helpers/notify-socket.js';
import { daemonCommand, tempDir } from '../../test/helpers/paths.js';
import { freePort } from '../../test/helpers/ports.js';
import { percentile, report, round, type Figure } from './stats.js';
import type { Bench } from './index.js';
import { describeBudget, openBudget, takeBudgetArg } from './budget.js';
import { openCallgrind, type Callgrind } from './callgrind.js';

export const bench: Bench = {
  description: 'process start to READY=1 and RSS, empty and 100 MB database',
  run,
};

async function run(argv: string[]): Promise<void> {
  const { cores, rest } = takeBudgetArg(argv);
  const { values } = parseArgs({
    args: rest,
    options: {
      runs: { type: 'string', default: '7' },
      'big-mb': { type: 'string', default: '100' },
      callgrind: { type: 'boolean', default: false },
      // `none`: an instance without a box, beside the embedded simulator's start.
      coproc: { type: 'string', default: 'sim' },
    },
  });
  const runs = Math.max(1, Number(values.runs));
  const bigMb = Math.max(1, Number(values['big-mb']));
  const budget = cores === null ? null : openBudget(cores);
  process.stderr.write(`[bench] ${describeBudget(budget)}, NESTBOX_COPROC=${values.coproc}\n`);
  const prefix = budget?.prefix ?? [];
  const callgrind = values.callgrind ? openCallgrind() : null;
  const figures: Figure[] = [];
  for (const [label, sizeMb] of [
    ['empty', 0],
    [`${bigMb} MB`, bigMb],
  ] as const) {
    const data = tempDir('nestbox-bench-');
    if (sizeMb > 0) await fillDatabase(join(data.path, 'nestbox.sqlite3'), sizeMb);
    const readyMs: number[] = [];
    const cpuMs: number[] = [];
    const rssMb: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const sample = await startOnce(data.path, prefix, values.coproc);
      readyMs.push(sample.readyMs);
      cpuMs.push(sample.cpuMs);
      rssMb.push(sample.rssMb);
    }
    const instructions = callgrind ? await instructionsToReady(data.path, callgrind, values.coproc) : null;
    data.remove();
    const database = label;
    const empty = sizeMb === 0;
    figures.push(
      {
        metric: `ready_p50_ms (${database})`,
        value: round(percentile(readyMs, 50)),
        unit: 'ms',
        target: empty ? (budget ? '≤ 1500' : '≤ 350') : '',
        database,
        runs,
      },
      { metric: `ready_max_ms (${database})`, value: round(percentile(readyMs, 100)), unit: 'ms', database, runs },
      { metric: `cpu_to_ready_p50_ms (${database})`, value: round(percentile(cpuMs, 50)), unit: 'ms', database, runs },
      {
        metric: `rss_p50_mb (${database})`,
        value: round(percentile(rssMb, 50)),
        unit: 'MB',
        target: empty ? '≤ 80' : '',
        database,
        runs,
      },
    );
    if (instructions !== null) {
      const metric = `instructions_to_ready_m (${database})`;
      figures.push({ metric, value: round(instructions / 1e6), unit: 'M', database, runs: 1 });
    }
  }
  budget?.close();
  callgrind?.close();
  report('startup', figures);
}

async function fillDatabase(filename: string, sizeMb: number): Promise<void> {
  const db = openDatabase({ filename });
  await migrate(db);
  await db.schema.createTable('bench_filler', (t) => {
    t.increments('id');
    t.binary('blob');
  });
  const chunk = Buffer.alloc(64 * 1024, 7);
  const rowsNeeded = Math.ceil((sizeMb * 1024 * 1024) / chunk.length);
  await db.transaction(async (trx) => {
    for (let i = 0; i < rowsNeeded; i += 50) {
      await trx('bench_filler').insert(Array.from({ length: Math.min(50, rowsNeeded - i) }, () => ({ blob: chunk })));
    }
  });
  await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  await db.destroy();
}

/** Clock ticks per second of /proc/<pid>/stat's times: 100 on Linux (USER_HZ). */
const TICKS_PER_S = 100;

/** Starts the daemon (through `prefix`, when given) with a notify socket; `started`: just before the spawn. */
async function launchDaemon(dataDir: string, prefix: readonly string[], coproc: string) {
  const listener = await startNotifyListener();
  const port = await freePort();
  const streamingPort = await freePort();
  const launch = daemonCommand();
  const [command, ...args] = [...prefix, launch.command, ...launch.args];
  const started = process.hrtime.bigint();
  const child = spawn(command, args, {
    env: {
      ...launch.env,
      PATH: process.env.PATH,
      NOTIFY_SOCKET: listener.path,
      NESTBOX_DATA_DIR: dataDir,
      NESTBOX_HTTP_PORT: String(port),
      NESTBOX_STREAMING_PORT: String(streamingPort),
      NESTBOX_LOG_LEVEL: 'warn',
      NESTBOX_COPROC: coproc,
    },
    stdio: 'ignore',
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await listener.close();
  };
  return { child, listener, started, stop };
}

async function instructionsToReady(dataDir: string, callgrind: Callgrind, coproc: string): Promise<number> {
  const { child, listener, stop } = await launchDaemon(dataDir, callgrind.prefix, coproc);
  try {
    await listener.waitFor((m) => m.READY === '1', 600_000);
    return callgrind.dump(child.pid!);
  } finally {
    await stop();
  }
}

async function startOnce(
  dataDir: string,
  prefix: readonly string[],
  coproc: string,
): Promise<{ readyMs: number; cpuMs: number; rssMb: number }> {
  const { child, listener, started, stop } = await launchDaemon(dataDir, prefix, coproc);
  try {
    await listener.waitFor((m) => m.READY === '1', 20_000);
    const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
    // utime and stime: the 14th and 15th fields, counted after the parenthesised command name.
    const times = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const cpuMs = ((Number(times[11]) + Number(times[12])) / TICKS_PER_S) * 1000;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return { readyMs, cpuMs, rssMb: rssKb / 1024 };
  } finally {
    await stop();
  }
}
