/**
 * npm run bench -- pages: the public profile and post pages against the real daemon on loopback,
 * with 10,000 posts on the account, beside the API's GET /api/v1/accounts/:id/statuses on the
 * same data: p50 / p99 latency and requests per second at 16 connections (wrk). `--budget pi`: the
 * daemon under a CPU quota (budget.ts); `--load N`: N spinning processes beside it while it is measured
 * (background-load.ts).
 */
import { join } from 'node:path';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { snowflakeAt } from '../../daemon/store/ids.js';
import { sha256 } from '../../daemon/social/oauth/secrets.js';
import { startDaemon } from '../../test/helpers/daemon.js';
import { tempDir } from '../../test/helpers/paths.js';
import type { Bench } from './index.js';
import { cpuMs, report, round, runQueueWaitMs, type Figure } from './stats.js';
import { wrkInstalled, wrkRun } from './wrk.js';
import { countInstructions } from './instructions.js';
import { describeLoad, startBackgroundLoad, takeLoadArg, type BackgroundLoad } from './background-load.js';
import { describeBudget, openBudget, takeBudgetArg } from './budget.js';

const POSTS = 10_000;
const CLIENTS = 16;
const SECONDS = 5;
const WARM_UP_SECONDS = 1;
const TOKEN = 'pages-bench-token';

/** One local account with POSTS public posts; returns its id and a post in the middle. */
async function seed(dataDir: string): Promise<{ accountId: string; postId: string }> {
  const db = openDatabase({ filename: join(dataDir, 'nestbox.sqlite3') });
  await migrate(db);
  const now = Date.now();
  const at = new Date(now).toISOString();
  const accountId = snowflakeAt(now - 10_000_000);
  let postId = '';
  await db.transaction(async (trx) => {
    await trx.raw(
      `INSERT INTO accounts (id, username, display_name, note, uri, url, created_at, updated_at) VALUES (?, 'owner', 'The Owner', '<p>Bench account</p>', 'http://127.0.0.1/users/owner', 'http://127.0.0.1/@owner', ?, ?)`,
      [accountId, at, at],
    );
    await trx.raw(
      `INSERT INTO users (account_id, email, password_hash, approved, created_at, confirmed_at) VALUES (?, 'owner@bench.test', 'x', 1, ?, ?)`,
      [accountId, at, at],
    );
    await trx.raw(`INSERT INTO oauth_tokens (token_hash, account_id, scopes, created_at) VALUES (?, ?, 'read', ?)`, [
      sha256(TOKEN),
      accountId,
      at,
    ]);
    for (let n = 0; n < POSTS; n++) {
      const id = snowflakeAt(now - 5_000_000 + n * 40);
      if (n === POSTS / 2) postId = id;
      const text = `Post number ${n} from the bench, with a few words to make it a realistic length.`;
      await trx.raw(
        `INSERT INTO statuses (id, account_id, uri, url, text, content, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'public', ?, ?)`,
        [
          id,
          accountId,
          `http://127.0.0.1/users/owner/statuses/${id}`,
          `http://127.0.0.1/@owner/${id}`,
          text,
          `<p>${text}</p>`,
          at,
          at,
        ],
      );
    }
  });
  await db.raw('ANALYZE');
  await db.destroy();
  return { accountId, postId };
}

export const bench: Bench = {
  description: 'public profile and post pages (10,000 posts) beside the API account statuses, wrk at 16 connections',
  async run(argv) {
    const { cores } = takeBudgetArg(argv);
    const loadProcesses = takeLoadArg(argv);
    if (!wrkInstalled()) {
      process.stderr.write('wrk is not installed (Debian package wrk)\n');
      process.exit(1);
    }
    const data = tempDir('nestbox-bench-');
    const { accountId, postId } = await seed(data.path);
    const budget = cores === null ? null : openBudget(cores);
    process.stderr.write(`[bench] ${describeBudget(budget)}\n`);
    const daemon = await startDaemon({
      dataDir: data.path,
      env: { NESTBOX_LOG_LEVEL: 'info' },
      // The daemon answers on this process's loopback; the prefix only moves it into the cgroup.
      within: budget ? { command: budget.prefix, fetch } : undefined,
    });
    let background: BackgroundLoad | null = null;
    try {
      const figures: Figure[] = [];
      const targets = [
        { metric: 'profile_page', path: '/@owner' },
        { metric: 'post_page', path: `/@owner/${postId}` },
        { metric: 'api_account_statuses', path: `/api/v1/accounts/${accountId}/statuses` },
      ];
      const loadOf = (path: string) => ({
        url: daemon.url,
        path,
        token: TOKEN,
        vary: 'none' as const,
        clients: CLIENTS,
      });
      // Every page is answered and loaded for a second before any is measured: the first target
      // would otherwise carry the JIT's warm-up of the whole serving path (and of the pages after
      // it, which share most of it) in its tail.
      for (const { path } of targets) {
        // Once more on a new connection if the idle one from the last warm-up was closed meanwhile.
        const fetchOnce = () => daemon.fetch(path, { headers: { authorization: `Bearer ${TOKEN}` } });
        const warm = await fetchOnce().catch(fetchOnce);
        if (!warm.ok) throw new Error(`${path}: ${warm.status}`);
        await warm.arrayBuffer();
        wrkRun({ ...loadOf(path), seconds: WARM_UP_SECONDS });
      }
      background = loadProcesses === null ? null : startBackgroundLoad(loadProcesses);
      process.stderr.write(`[bench] ${describeLoad(background)}\n`);
      for (const { metric, path } of targets) {
        const load = loadOf(path);
        const pid = daemon.child.pid!;
        const [cpuBefore, mainBefore, waitBefore] = [cpuMs(pid), cpuMs(pid, pid), runQueueWaitMs(pid)];
        const { result: run, instructions } = await countInstructions(pid, async () =>
          wrkRun({ ...load, seconds: SECONDS }),
        );
        const [cpuAfter, mainAfter, waitAfter] = [cpuMs(pid), cpuMs(pid, pid), runQueueWaitMs(pid)];
        const page = metric !== 'api_account_statuses';
        const rows: Array<[string, number, string, string]> = [
          ['p50_ms', round(run.p50Ms), 'ms', '≤ 5'],
          ['p99_ms', round(run.p99Ms), 'ms', '≤ 20'],
          ['rps', round(run.rps, 0), 'req/s', budget ? '≥ 300' : '≥ API'],
        ];
        // Steadier than the latencies when others share the machine (CPU time still grows with
        // their load: caches and the other hyperthread are shared); all threads, then the main one.
        rows.push(
          ['cpu_ms_per_request', round((cpuAfter - cpuBefore) / run.requests, 3), 'ms', ''],
          ['main_thread_cpu_ms_per_request', round((mainAfter - mainBefore) / run.requests, 3), 'ms', ''],
          // The share of the run the main thread was ready to answer but waited for a CPU: what of
          // the tail the machine's other work adds.
          ['main_thread_run_queue_wait_pct', round(((waitAfter - waitBefore) / (SECONDS * 1000)) * 100, 1), '%', ''],
        );
        // Unlike the latencies, barely moved by other work on the machine (where perf can count them).
        if (instructions !== null)
          rows.push(['million_instructions_per_request', round(instructions / run.requests / 1e6), 'M', '']);
        for (const [suffix, value, unit, target] of rows) {
          figures.push({
            metric: `${metric}_${suffix}`,
            value,
            unit,
            target: page ? target : '',
            posts: POSTS,
            clients: CLIENTS,
          });
        }
      }
      report('pages', figures);
    } finally {
      background?.stop();
      await daemon.stop();
      budget?.close();
      data.remove();
    }
  },
};
