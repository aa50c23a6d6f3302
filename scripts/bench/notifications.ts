/**
 * Notifications benchmark: seeds 1,000 accounts and N notifications (default 1,000,000; 10% for
 * one heavy account: 55% favourites and 20% reblogs of 2,000 statuses, 10% follows, 15% mentions,
 * in 12-hour groups over a year), starts the real daemon on it, and measures
 * GET /api/v2/notifications?limit=40 and /api/v2/notifications/unread_count: p50/p99 at one
 * client, requests per second at 16 clients, and the daemon's RSS. The primary figures are
 * uncached: every request differs from the others (a new, always too high max_id for the page; an
 * unused query parameter for the count), so the response cache never answers and the page is
 * walked, counted, hydrated and serialized each time. The same requests repeated (answered from
 * the response cache) are the secondary, "cached" figures. Each throughput run also reports the
 * daemon's CPU time per request (all threads, and the main thread's share, which caps throughput
 * at 1000 / main-thread ms), figures that stay comparable when other work shares the machine;
 * on PostgreSQL also the server's CPU time per request (its backends do the statements' work).
 * Throughput is measured with wrk when it is installed (as the floors were), else with a Node
 * client that competes with the daemon for the same two cores.
 * Then all of it on a copy with 10,000 notifications (the newest 1% of every account), and the
 * 1M/10k ratios. With wrk, each round also measures the floors' bare koa server (stack-floor.ts):
 * how far the machine was from the day the floors were taken. It is context, not a correction:
 * the shared machine's spells shift within seconds, so the same reading can go with quite
 * different page rates.
 *
 * Both sizes run side by side, measured endpoint by endpoint in turn, in 5 rounds; each figure is the median of its rounds.
 *
 * With `--database postgres`, each seeded database is also moved into a throwaway PostgreSQL cluster
 * (postgres-cluster.ts) and a second daemon serves it: both engines measured side by side, each
 * figure line naming its `database`, plus PostgreSQL's p99 and rps over SQLite's.
 *
 *   npm run bench -- notifications [--rows 1000000] [--small 10000] [--requests 400] [--seconds 3] [--rounds 5] [--keep] [--budget pi] [--database postgres] [--server-core]
 *   (--budget: the daemons and the stack floor under a CPU quota, budget.ts)
 *   (--server-core: PostgreSQL's server on a core of its own, the rest on the others, server-core.ts)
 *   (--keep leaves the seeded data directories in place and names them on stderr)
 *   (--statements: after the rounds, each uncached endpoint on the largest PostgreSQL database at one
 *   client, its costliest statements per request on stderr; statement-costs.ts. The cluster then
 *   loads pg_stat_statements for the whole run, which costs the server CPU in every round: take
 *   throughput ratios from runs without it)
 */
import type { Bench } from './index.js';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../daemon/config.js';
import { daemonCommand, REPO_ROOT, tempDir } from '../../test/helpers/paths.js';
import { freePort } from '../../test/helpers/ports.js';
import { wrkInstalled, wrkThroughput, type Vary } from './wrk.js';
import { FLOORS_KOA_RPS_16, startStackFloor } from './stack-floor.js';
import { cpuMs } from './stats.js';
import { serverCpuMs, serverPid } from './server-cpu.js';
import { describeSplit, serverCoreOf } from './server-core.js';
import { countInstructions } from './instructions.js';
import { describeBudget, openBudget, takeBudgetArg, type Budget } from './budget.js';
import { seed } from './notifications-seed.js';
import { rss, throughput, waitReady } from './probes.js';
import { BenchCluster, databasesOf, type BenchDatabase } from './postgres-cluster.js';
import {
  METRIC,
  MODES,
  NAMES,
  printTable,
  round,
  type Endpoint,
  type Figures,
  type Latency,
  type Mode,
  type Name,
  type Round,
} from './notifications-figures.js';
import { STATEMENT_SETTINGS, StatementCosts } from './statement-costs.js';

export const bench: Bench = {
  description: 'GET /api/v2/notifications and unread_count over 1,000,000 notifications (and 10,000)',
  run,
};

async function run(argv: string[]): Promise<void> {
  const { cores, rest } = takeBudgetArg(argv);
  const { values } = parseArgs({
    args: rest,
    options: {
      rows: { type: 'string' },
      small: { type: 'string' },
      requests: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      keep: { type: 'boolean' },
      database: { type: 'string' },
      statements: { type: 'boolean' },
      'server-core': { type: 'boolean' },
    },
  });
  const rows = Number(values.rows ?? 1_000_000);
  const small = Number(values.small ?? 10_000);
  const options = { requests: Number(values.requests ?? 400), seconds: Number(values.seconds ?? 3) };
  const rounds = Number(values.rounds ?? 5);
  const wrk = wrkInstalled();
  process.stderr.write(
    `[bench] throughput measured with ${wrk ? 'wrk' : 'a Node client (install wrk for steadier figures)'}\n`,
  );
  const split = serverCoreOf(rest);
  const budget = cores === null ? null : openBudget(cores);
  process.stderr.write(`[bench] ${describeBudget(budget)}; ${describeSplit(split)}\n`);
  const databases = databasesOf(values.database);
  const targets: Target[] = [];
  const floor = wrk ? await startStackFloor(budget) : null;
  const statements = values.statements ?? false;
  const cluster = databases.includes('postgres')
    ? await BenchCluster.start(statements ? STATEMENT_SETTINGS : [], true, split)
    : null;
  try {
    for (const size of [small, rows]) targets.push(...(await prepare(size, rows, budget, cluster)));
    // Both sizes are measured side by side, endpoint by endpoint, and each figure is the median of
    // its rounds, so a slower spell of the shared machine weighs on both sides of a ratio alike.
    const measured = targets.map(() => [] as Round[]);
    const speeds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (floor) speeds.push(floor.measure(options.seconds) / FLOORS_KOA_RPS_16);
      (await measureRound(targets, options, wrk)).forEach((figures, i) => measured[i].push(figures));
    }
    const results = targets.map((target, i) => figuresOf(target, measured[i]));
    printTable(results);
    if (floor) printSpeed(speeds);
    printLines(results, measured, speeds);
    if (statements) await reportStatements(targets, options.requests);
  } finally {
    for (const target of targets) await target.close(values.keep ?? false);
    await cluster?.stop();
    await floor?.close();
    budget?.close();
  }
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

function printSpeed(speeds: number[]): void {
  const speed = median(speeds);
  process.stdout.write(
    `machine speed: the floors' bare koa server answered ${Math.round(speed * FLOORS_KOA_RPS_16)} req/s at 16 clients, ${Math.round(speed * 100)}% of the ${FLOORS_KOA_RPS_16} in performance-floors.md (rounds: ${speeds.map((v) => `${Math.round(v * 100)}%`).join(' ')})\n`,
  );
}

function printLines(results: Figures[], rounds: Round[][], speeds: number[]): void {
  if (speeds.length) {
    process.stdout.write(
      `${JSON.stringify({ bench: 'notifications', metric: 'stack_floor_rps_16', value: round(median(speeds) * FLOORS_KOA_RPS_16) })}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ bench: 'notifications', metric: 'machine_speed_vs_floors', value: round(median(speeds)) })}\n`,
    );
  }
  for (const figures of results) {
    const line = (metric: string, value: number) =>
      process.stdout.write(
        `${JSON.stringify({ bench: 'notifications', metric, value: round(value), rows: figures.rows, database: figures.database })}\n`,
      );
    line('seed_ms', figures.seedMs);
    for (const mode of MODES) {
      // Uncached figures keep the plain metric names (they are the ones judged); cached ones say so.
      const suffix = mode === 'cached' ? '_cached' : '';
      for (const name of NAMES) {
        const { latency: l, rps, cpuMs, mainMs, serverMs, instructionsM } = figures[mode][name];
        line(`${METRIC[name]}${suffix}_p50_ms`, l.p50);
        line(`${METRIC[name]}${suffix}_p99_ms`, l.p99);
        line(`${METRIC[name]}${suffix}_rps_16`, rps);
        line(`${METRIC[name]}${suffix}_cpu_ms_per_request`, cpuMs);
        if (serverMs !== null) line(`${METRIC[name]}${suffix}_server_cpu_ms_per_request`, serverMs);
        line(`${METRIC[name]}${suffix}_main_thread_cpu_ms_per_request`, mainMs);
        if (instructionsM !== null) line(`${METRIC[name]}${suffix}_million_instructions_per_request`, instructionsM);
      }
    }
    line('rss_mb', figures.rssMb);
  }
  // Each ratio is the median of the rounds' own ratios: the two sizes of a round were measured
  // seconds apart, so a spell that moved between rounds does not set one size's median against
  // the other's taken in another spell.
  const of = (database: BenchDatabase, rows: number) => {
    const i = results.findIndex((r) => r.database === database && r.rows === rows);
    return { figures: results[i], rounds: rounds[i] };
  };
  const [smallest, largest] = [Math.min(...results.map((r) => r.rows)), Math.max(...results.map((r) => r.rows))];
  const ratio = (
    a: ReturnType<typeof of>,
    b: ReturnType<typeof of>,
    metric: string,
    pick: (round: Round) => number,
  ) => {
    const each = b.rounds.map((r, i) => pick(r) / pick(a.rounds[i]));
    const { rows, database } = b.figures;
    const line = {
      bench: 'notifications',
      metric,
      value: round(median(each)),
      rows,
      database,
      baseline_rows: a.figures.rows,
    };
    const spread = { rounds: each.map((value) => round(value)) };
    process.stdout.write(`${JSON.stringify({ ...line, baseline_database: a.figures.database, ...spread })}\n`);
  };
  for (const mode of MODES) {
    const suffix = mode === 'cached' ? '_cached' : '';
    for (const name of NAMES) {
      const metric = `${METRIC[name]}${suffix}`;
      for (const database of new Set(results.map((r) => r.database))) {
        ratio(of(database, smallest), of(database, largest), `${metric}_p50_ratio`, (r) => r[mode][name].latency.p50);
        ratio(of(database, smallest), of(database, largest), `${metric}_rps_ratio`, (r) => r[mode][name].rps);
      }
      if (!results.some((r) => r.database === 'postgres')) continue;
      // PostgreSQL's targets: its p99 within 2x of SQLite's, its rps at 16 at least SQLite's.
      const [sqlite, postgres] = [of('sqlite', largest), of('postgres', largest)];
      ratio(sqlite, postgres, `${metric}_p99_postgres_vs_sqlite`, (r) => r[mode][name].latency.p99);
      ratio(sqlite, postgres, `${metric}_rps_postgres_vs_sqlite`, (r) => r[mode][name].rps);
    }
  }
}

/** A seeded database with its daemon running. */
interface Target {
  database: BenchDatabase;
  size: number;
  seedMs: number;
  url: string;
  token: string;
  pid: number;
  /** The PostgreSQL database the daemon serves, null on SQLite. */
  databaseUrl: string | null;
  /** The PostgreSQL server's main process (its CPU counts its backends'), null on SQLite. */
  serverPid: number | null;
  get(path: string): Promise<{ status: number; body: string }>;
  close(keep: boolean): Promise<void>;
}

const LIST_PATH = '/api/v2/notifications?limit=40';
const UNREAD_PATH = '/api/v2/notifications/unread_count';

/**
 * Seeds a database whose newest `size` notifications match the `full`-row set and starts a daemon
 * on it; with a cluster, also moves it there and starts a second daemon on PostgreSQL.
 */
async function prepare(
  size: number,
  full: number,
  budget: Budget | null,
  cluster: BenchCluster | null,
): Promise<Target[]> {
  const dir = tempDir('nestbox-bench-');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { NESTBOX_DATA_DIR: dir.path, NESTBOX_BASE_URL: url };
  const started = Date.now();
  const token = await seed(loadConfig({ env }), size, full);
  const seedMs = Date.now() - started;
  process.stderr.write(`[bench] ${size} notifications seeded in ${seedMs} ms\n`);
  const seeded = { size, seedMs, token, base: url };
  if (!cluster) return [await startTarget('sqlite', dir, port, env, seeded, budget)];
  const moved = await cluster.moveFrom(dir.path);
  process.stderr.write(`[bench] moved to PostgreSQL: ${moved.rows} rows in ${moved.ms} ms\n`);
  const pgDir = tempDir('nestbox-bench-');
  const pgEnv = { NESTBOX_DATA_DIR: pgDir.path, NESTBOX_BASE_URL: url, NESTBOX_DATABASE_URL: moved.url };
  const onSqlite = await startTarget('sqlite', dir, port, env, seeded, budget);
  try {
    return [onSqlite, await startTarget('postgres', pgDir, await freePort(), pgEnv, seeded, budget)];
  } catch (error) {
    await onSqlite.close(false);
    throw error;
  }
}

/** A daemon on a seeded database (the base URL stays the seeded one: a PostgreSQL daemon listens elsewhere). */
async function startTarget(
  database: BenchDatabase,
  dir: { path: string; remove(): void },
  port: number,
  env: Record<string, string>,
  seeded: { size: number; seedMs: number; token: string; base: string },
  budget: Budget | null,
): Promise<Target> {
  const { size, seedMs, token } = seeded;
  const url = `http://127.0.0.1:${port}`;
  const launch = daemonCommand();
  const [command, ...args] = [...(budget?.prefix ?? []), launch.command, ...launch.args];
  const daemon = spawn(command, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...launch.env,
      PATH: process.env.PATH,
      ...env,
      NESTBOX_HTTP_PORT: String(port),
      NESTBOX_STREAMING_PORT: String(await freePort()),
      NESTBOX_LOG_LEVEL: 'warn',
      NESTBOX_BACKUP_SCHEDULE: 'off',
    },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const close = async (keep: boolean) => {
    agent.destroy();
    if (daemon.exitCode === null) {
      const exited = new Promise((resolve) => daemon.once('exit', resolve));
      daemon.kill('SIGTERM');
      await exited;
    }
    if (keep) process.stderr.write(`[bench] kept ${dir.path}\n`);
    else dir.remove();
  };
  try {
    await waitReady(url);
    const get = (path: string) => httpGet(agent, `${url}${path}`, token);
    const check = await get(LIST_PATH);
    if (
      check.status !== 200 ||
      (JSON.parse(check.body) as { notification_groups: unknown[] }).notification_groups.length !== 40
    ) {
      throw new Error(`${database}: unexpected answer ${check.status}: ${check.body.slice(0, 200)}`);
    }
    const server = env.NESTBOX_DATABASE_URL ? await serverPid(env.NESTBOX_DATABASE_URL) : null;
    const databaseUrl = env.NESTBOX_DATABASE_URL ?? null;
    return { database, size, seedMs, url, token, pid: daemon.pid!, serverPid: server, databaseUrl, get, close };
  } catch (error) {
    await close(false);
    throw error;
  }
}

/**
 * One round: every endpoint and mode measured on each target in turn, so the two sizes of a pair
 * are measured seconds apart, within the same spell of the shared machine.
 */
async function measureRound(
  targets: readonly Target[],
  options: { requests: number; seconds: number },
  wrk: boolean,
): Promise<Round[]> {
  const measured = targets.map(() => ({ uncached: {}, cached: {} }) as Round);
  for (const mode of MODES) {
    for (const name of NAMES) {
      for (const [i, target] of targets.entries())
        measured[i][mode][name] = await measureEndpoint(target, mode, name, options, wrk);
    }
  }
  return measured;
}

/** Numbers the uncached requests: each one a URL not asked before. */
let requestNumber = 0;

/**
 * One request of an endpoint in a mode. Uncached: every request a different URL (an always too
 * high max_id; an unused parameter), so the response cache never answers. Cached: the same URL
 * again and again.
 */
function callOf(target: Target, mode: Mode, name: Name): () => Promise<{ status: number }> {
  if (mode === 'cached') return () => target.get(name === 'list' ? LIST_PATH : UNREAD_PATH);
  if (name === 'list') return () => target.get(`${LIST_PATH}&max_id=${4611686018427387904n - BigInt(++requestNumber)}`);
  return () => target.get(`${UNREAD_PATH}?bench_request=${++requestNumber}`);
}

/** Each uncached endpoint of the largest PostgreSQL target at one client: its statements per request. */
async function reportStatements(targets: readonly Target[], requests: number): Promise<void> {
  const onPostgres = targets.filter((target) => target.databaseUrl !== null);
  const largest = onPostgres.find((target) => target.size === Math.max(...onPostgres.map((t) => t.size)));
  if (!largest) return;
  for (const name of NAMES) {
    const call = callOf(largest, 'uncached', name);
    const costs = await StatementCosts.start(largest.databaseUrl!);
    await latency(call, requests);
    const lines = await costs.report(requests);
    process.stderr.write(`${METRIC[name]} uncached, ${largest.size} rows, per request:\n${lines.join('\n')}\n`);
  }
}

/** One endpoint in one mode: latency at one client, then throughput at 16. */
async function measureEndpoint(
  target: Target,
  mode: Mode,
  name: Name,
  options: { requests: number; seconds: number },
  wrk: boolean,
): Promise<Endpoint> {
  const wrkRequests: Record<Mode, Record<Name, { path: string; vary: Vary }>> = {
    uncached: { list: { path: LIST_PATH, vary: 'max_id' }, unread: { path: UNREAD_PATH, vary: 'param' } },
    cached: { list: { path: LIST_PATH, vary: 'none' }, unread: { path: UNREAD_PATH, vary: 'none' } },
  };
  const call = callOf(target, mode, name);
  for (let i = 0; i < 50; i++) await call();
  // One client, one request at a time: the instructions each costs the daemon, all threads.
  const { result: l, instructions } = await countInstructions(target.pid, () => latency(call, options.requests));
  const cpuBefore = cpuMs(target.pid);
  const mainBefore = cpuMs(target.pid, target.pid);
  const serverBefore = target.serverPid === null ? 0 : serverCpuMs(target.serverPid);
  const rps = wrk
    ? wrkThroughput({
        url: target.url,
        token: target.token,
        clients: 16,
        seconds: options.seconds,
        ...wrkRequests[mode][name],
      })
    : await throughput(call, 16, options.seconds);
  const requests = rps * options.seconds;
  return {
    latency: l,
    rps,
    cpuMs: (cpuMs(target.pid) - cpuBefore) / requests,
    mainMs: (cpuMs(target.pid, target.pid) - mainBefore) / requests,
    serverMs: target.serverPid === null ? null : (serverCpuMs(target.serverPid) - serverBefore) / requests,
    instructionsM: instructions === null ? null : instructions / options.requests / 1e6,
  };
}

/** The median of each figure over the rounds, and the daemon's RSS after all of them. */
function figuresOf(target: Target, rounds: Round[]): Figures {
  const pick = (mode: Mode, name: Name): Endpoint => {
    const all = rounds.map((r) => r[mode][name]);
    return {
      latency: { p50: median(all.map((e) => e.latency.p50)), p99: median(all.map((e) => e.latency.p99)) },
      rps: median(all.map((e) => e.rps)),
      cpuMs: median(all.map((e) => e.cpuMs)),
      mainMs: median(all.map((e) => e.mainMs)),
      serverMs: all.some((e) => e.serverMs === null) ? null : median(all.map((e) => e.serverMs!)),
      instructionsM: all.some((e) => e.instructionsM === null) ? null : median(all.map((e) => e.instructionsM!)),
    };
  };
  const endpoints = (mode: Mode) => ({ list: pick(mode, 'list'), unread: pick(mode, 'unread') });
  return {
    database: target.database,
    rows: target.size,
    seedMs: target.seedMs,
    rssMb: rss(target.pid),
    uncached: endpoints('uncached'),
    cached: endpoints('cached'),
  };
}

/**
 * A GET on a kept-alive connection, asked again once on a fresh one when the server had just closed
 * the kept one (idle past its keep-alive timeout while the other size was measured): the
 * retry Node's documentation prescribes for request.reusedSocket.
 */
function httpGet(agent: Agent, url: string, token: string, retried = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!retried && req.reusedSocket && error.code === 'ECONNRESET') resolve(httpGet(agent, url, token, true));
      else reject(error);
    });
    req.end();
  });
}

async function latency(call: () => Promise<{ status: number }>, count: number): Promise<Latency> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    const { status } = await call();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (status !== 200) throw new Error(`status ${status}`);
  }
  times.sort((x, y) => x - y);
  return { p50: times[Math.floor(count * 0.5)], p99: times[Math.min(count - 1, Math.floor(count * 0.99))] };
}
