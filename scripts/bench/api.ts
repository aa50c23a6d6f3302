/**
 * npm run bench -- api: the social API under realistic volume, through HTTP against the real
 * daemon on loopback. Home timeline (40 statuses; 10,000 posts by 100 followed accounts), search
 * (100,000 statuses), a 4 MB JPEG upload (answer and end of processing), and streaming (500
 * WebSocket clients; one notification delivered to its recipient), and posting (12 clients at once,
 * each status mentioning and tagging, fanned out to a follower's home feed).
 * `--only NAME…`: only these measurements (home_timeline, search, upload, streaming, posting).
 * `--database postgres`: the seeded database is also moved into a throwaway PostgreSQL cluster
 * (postgres-cluster.ts) and the same measurements run on a daemon there, figures naming `database`;
 * `--server-core`: that cluster's server on a core of its own (server-core.ts).
 * `--statements`: with it, the home timeline, search and posting on PostgreSQL print their costliest statements per
 * request (stderr).
 * `--fast-commits`: the cluster without fsync and synchronous commits (postgres-cluster.ts).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import sharp from 'sharp';
import WebSocket from 'ws';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { snowflakeAt } from '../../daemon/store/ids.js';
import { sha256 } from '../../daemon/social/oauth/secrets.js';
import { startDaemon, type RunningDaemon } from '../../test/helpers/daemon.js';
import { tempDir } from '../../test/helpers/paths.js';
import type { Bench } from './index.js';
import { cpuMs, percentile, report, round, type Figure } from './stats.js';
import { countInstructions } from './instructions.js';
import { BenchCluster, databasesOf, type BenchDatabase } from './postgres-cluster.js';
import { serverCpuMs, serverPid } from './server-cpu.js';
import { describeSplit, serverCoreOf } from './server-core.js';
import { STATEMENT_SETTINGS, StatementCosts } from './statement-costs.js';

const ACCOUNTS = 1000;
const FOLLOWED = 100;
const STATUSES = 100_000;
const FOLLOWED_POSTS = 10_000;
const CLIENTS = 500;
const TIMELINE_REQUESTS = 600;
const SEARCHES = 300;

const WORDS = Array.from({ length: 2000 }, (_, i) => `w${(i * 7919).toString(36)}x`);

async function seed(dataDir: string): Promise<void> {
  const db = openDatabase({ filename: join(dataDir, 'nestbox.sqlite3') });
  await migrate(db);
  const now = Date.now();
  const at = new Date(now).toISOString();
  await db.transaction(async (trx) => {
    for (let i = 0; i < ACCOUNTS; i++) {
      const id = snowflakeAt(now - 10_000_000 + i);
      await trx.raw(
        `INSERT INTO accounts (id, username, display_name, uri, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [id, `user${i}`, `User ${i}`, `http://127.0.0.1/users/user${i}`, `http://127.0.0.1/@user${i}`, at, at],
      );
      await trx.raw(
        `INSERT INTO users (account_id, email, password_hash, approved, created_at, confirmed_at) VALUES (?, ?, 'x', 1, ?, ?)`,
        [id, `user${i}@bench.test`, at, at],
      );
      await trx.raw(
        `INSERT INTO oauth_tokens (token_hash, account_id, scopes, created_at) VALUES (?, ?, 'read write', ?)`,
        [sha256(`token-${i}`), id, at],
      );
    }
    // user0 follows user1..user100.
    for (let i = 1; i <= FOLLOWED; i++) {
      await trx.raw(`INSERT INTO follows (account_id, target_account_id, created_at) VALUES (?, ?, ?)`, [
        snowflakeAt(now - 10_000_000),
        snowflakeAt(now - 10_000_000 + i),
        at,
      ]);
    }
    let seedValue = 1;
    const random = () => {
      seedValue = (seedValue * 48271) % 2147483647;
      return seedValue / 2147483647;
    };
    for (let n = 0; n < STATUSES; n++) {
      // The first 10,000 are by followed accounts, spread over the whole period; the rest by others.
      const author = n % 10 === 0 ? 1 + ((n / 10) % FOLLOWED) : FOLLOWED + 1 + (n % (ACCOUNTS - FOLLOWED - 1));
      const id = snowflakeAt(now - 5_000_000 + n * 40);
      const text = Array.from({ length: 12 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
      await trx.raw(
        `INSERT INTO statuses (id, account_id, uri, text, content, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'public', ?, ?)`,
        [id, snowflakeAt(now - 10_000_000 + author), `http://127.0.0.1/s/${id}`, text, `<p>${text}</p>`, at, at],
      );
    }
  });
  await db.raw('ANALYZE');
  await db.destroy();
}

async function timed(samples: number[], run: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await run();
  samples.push(performance.now() - started);
}

async function get(daemon: RunningDaemon, path: string, token: string): Promise<unknown> {
  const res = await daemon.fetch(path, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

/**
 * The samples, the daemon's CPU time per request (all threads: steadier than latency on a shared
 * machine) and its instructions per request (steadier still; null without perf).
 */
async function benchTimeline(
  daemon: RunningDaemon,
): Promise<{ samples: number[]; cpuMs: number; instructionsM: number | null }> {
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) await get(daemon, '/api/v1/timelines/home?limit=40', 'token-0');
  const cpuBefore = cpuMs(daemon.child.pid!);
  const { instructions } = await countInstructions(daemon.child.pid!, async () => {
    for (let i = 0; i < TIMELINE_REQUESTS; i++) {
      await timed(samples, async () => {
        const body = (await get(daemon, '/api/v1/timelines/home?limit=40', 'token-0')) as unknown[];
        if (body.length !== 40) throw new Error(`home timeline gave ${body.length}`);
      });
    }
  });
  return {
    samples,
    cpuMs: (cpuMs(daemon.child.pid!) - cpuBefore) / TIMELINE_REQUESTS,
    instructionsM: instructions === null ? null : instructions / TIMELINE_REQUESTS / 1e6,
  };
}

/**
 * The samples and the CPU time per search of the daemon and, on PostgreSQL, of the server's
 * processes (`server`: its main process id), where the query's work is done.
 */
async function benchSearch(
  daemon: RunningDaemon,
  server: number | null,
): Promise<{ samples: number[]; cpuMs: number; serverCpuMs: number | null }> {
  const samples: number[] = [];
  const cpuBefore = cpuMs(daemon.child.pid!);
  const serverBefore = server === null ? 0 : serverCpuMs(server);
  for (let i = 0; i < SEARCHES; i++) {
    const word = WORDS[(i * 37) % WORDS.length];
    await timed(samples, async () => {
      await get(daemon, `/api/v2/search?q=${word}&type=statuses&limit=20`, 'token-0');
    });
  }
  return {
    samples,
    cpuMs: (cpuMs(daemon.child.pid!) - cpuBefore) / SEARCHES,
    serverCpuMs: server === null ? null : (serverCpuMs(server) - serverBefore) / SEARCHES,
  };
}

async function benchUpload(daemon: RunningDaemon): Promise<{ answered: number[]; processed: number[] }> {
  const side = 2000;
  const jpeg = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
  process.stderr.write(`upload file: ${(jpeg.length / 1024 / 1024).toFixed(1)} MB JPEG, ${side}x${side}\n`);
  const answered: number[] = [];
  const processed: number[] = [];
  for (let i = 0; i < 5; i++) {
    const body = new FormData();
    body.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'photo.jpg');
    const started = performance.now();
    const res = await daemon.fetch('/api/v2/media', {
      method: 'POST',
      headers: { authorization: 'Bearer token-1' },
      body,
    });
    const media = (await res.json()) as { id: string };
    answered.push(performance.now() - started);
    for (;;) {
      const state = await daemon.fetch(`/api/v1/media/${media.id}`, { headers: { authorization: 'Bearer token-1' } });
      await state.arrayBuffer();
      if (state.status === 200) break;
      if (state.status !== 206) throw new Error(`media ${media.id}: ${state.status}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    processed.push(performance.now() - started);
  }
  return { answered, processed };
}

const STREAMED_NOTIFICATIONS = 100;
const WARM_UP_NOTIFICATIONS = 10;

/**
 * A favourite's notification from the request until its recipient's stream carries it, with 500
 * clients connected: the samples. First WARM_UP_NOTIFICATIONS untimed, so the writer's connections
 * have the favourite's statements planned, as in a daemon that has run a while (benchPosting).
 */
async function benchStreaming(daemon: RunningDaemon): Promise<number[]> {
  const url = `ws://127.0.0.1:${daemon.streamingPort}/api/v1/streaming?stream=user:notification`;
  const recipients = Array.from({ length: CLIENTS }, (_, i) => FOLLOWED + 1 + i);
  const waiting = new Map<number, () => void>();
  const sockets = await Promise.all(
    recipients.map(
      (n) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(url, { headers: { authorization: `Bearer token-${n}` } });
          ws.on('message', () => waiting.get(n)?.());
          ws.once('open', () => resolve(ws));
          ws.once('error', reject);
        }),
    ),
  );
  const samples: number[] = [];
  for (let i = 0; i < WARM_UP_NOTIFICATIONS + STREAMED_NOTIFICATIONS; i++) {
    const n = recipients[(i * 7) % recipients.length];
    const statuses = (await get(
      daemon,
      `/api/v1/accounts/${await accountId(daemon, n)}/statuses?limit=1`,
      'token-0',
    )) as Array<{ id: string }>;
    const delivered = new Promise<void>((resolve) => waiting.set(n, resolve));
    const started = performance.now();
    const res = await daemon.fetch(`/api/v1/statuses/${statuses[0].id}/favourite`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-0' },
    });
    await res.arrayBuffer();
    await delivered;
    if (i >= WARM_UP_NOTIFICATIONS) samples.push(performance.now() - started);
    waiting.delete(n);
    await daemon
      .fetch(`/api/v1/statuses/${statuses[0].id}/unfavourite`, {
        method: 'POST',
        headers: { authorization: 'Bearer token-0' },
      })
      .then((r) => r.arrayBuffer());
  }
  for (const ws of sockets) ws.close();
  return samples;
}

const POSTING_CLIENTS = 12;
const POSTS_PER_CLIENT = 25;
const WARM_UP_POSTS = 10;

/**
 * Statuses posted by 12 accounts at once (user1..user12, whom user0 follows: each post reaches a
 * home feed), each mentioning user0 and carrying a hashtag: the samples, posts per second and the
 * daemon's CPU time per post. First a warm-up of WARM_UP_POSTS a client, so each database
 * connection has its statements planned, as in a daemon that has run a while (PostgreSQL plans a
 * prepared statement anew on each of its first five calls on a connection). `measuring` is called
 * between the two (the statement costs start there); what it gives back is returned as `started`.
 */
async function benchPosting<T>(
  daemon: RunningDaemon,
  server: number | null,
  measuring: () => Promise<T>,
): Promise<{ samples: number[]; perSecond: number; cpuMs: number; serverCpuMs: number | null; started: T }> {
  const post = async (client: number, n: number) => {
    const res = await daemon.fetch('/api/v1/statuses', {
      method: 'POST',
      headers: { authorization: `Bearer token-${client}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: `bench post ${n} from ${client} for @user0 #benchmark` }),
    });
    if (res.status !== 200) throw new Error(`post answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const clients = Array.from({ length: POSTING_CLIENTS }, (_, i) => i + 1);
  await Promise.all(
    clients.map(async (client) => {
      for (let n = 0; n < WARM_UP_POSTS; n++) await post(client, -1 - n);
    }),
  );
  const measured = await measuring();
  const samples: number[] = [];
  const cpuBefore = cpuMs(daemon.child.pid!);
  const serverBefore = server === null ? 0 : serverCpuMs(server);
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let n = 0; n < POSTS_PER_CLIENT; n++) await timed(samples, () => post(client, n));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    samples,
    perSecond: samples.length / seconds,
    cpuMs: (cpuMs(daemon.child.pid!) - cpuBefore) / samples.length,
    serverCpuMs: server === null ? null : (serverCpuMs(server) - serverBefore) / samples.length,
    started: measured,
  };
}

async function accountId(daemon: RunningDaemon, n: number): Promise<string> {
  const account = (await get(daemon, `/api/v1/accounts/lookup?acct=user${n}`, 'token-0')) as { id: string };
  return account.id;
}

export const apiBench: Bench = {
  description:
    'home timeline, search, media upload, streaming delivery and posting against the real daemon [--database postgres] [--server-core]',
  async run(args) {
    const databases = databasesOf(args.includes('--database') ? args[args.indexOf('--database') + 1] : undefined);
    const split = serverCoreOf(args);
    process.stderr.write(`[bench] ${describeSplit(split)}\n`);
    const only = args.includes('--only')
      ? args.slice(args.indexOf('--only') + 1).filter((arg) => !arg.startsWith('--'))
      : [];
    const wanted = (name: string) => only.length === 0 || only.includes(name);
    const data = tempDir('nestbox-bench-');
    const seeding = performance.now();
    await seed(data.path);
    process.stderr.write(
      `seeded ${STATUSES} statuses, ${ACCOUNTS} accounts in ${Math.round(performance.now() - seeding)} ms\n`,
    );
    const statements = args.includes('--statements');
    const cluster = databases.includes('postgres')
      ? await BenchCluster.start(statements ? STATEMENT_SETTINGS : [], !args.includes('--fast-commits'), split)
      : null;
    const pgData = tempDir('nestbox-bench-');
    try {
      // Moved first: the SQLite daemon will hold the file.
      const moved = cluster ? await cluster.moveFrom(data.path) : null;
      for (const database of databases) {
        const env: Record<string, string> = moved && database === 'postgres' ? { NESTBOX_DATABASE_URL: moved.url } : {};
        const dataDir = database === 'postgres' ? pgData.path : data.path;
        // Each engine's figures as soon as they are measured: a route not yet on PostgreSQL stops the run there.
        report('api', await measure(database, dataDir, env, wanted, statements));
      }
    } finally {
      await cluster?.stop();
      pgData.remove();
      data.remove();
    }
  },
};

/** Every measurement on a daemon over `dataDir` (and `env`'s database), figures naming `database`. */
async function measure(
  database: BenchDatabase,
  dataDir: string,
  env: Record<string, string>,
  wanted: (name: string) => boolean,
  statements: boolean,
): Promise<Figure[]> {
  const daemon = await startDaemon({ dataDir, keepDataDir: true, env: { NESTBOX_LOG_LEVEL: 'info', ...env } });
  try {
    const figures: Figure[] = [];
    const add = (metric: string, samples: number[], extra: Record<string, unknown> = {}) => {
      figures.push({ bench: 'api', metric: `${metric}_p50_ms`, value: round(percentile(samples, 50)), ...extra });
      figures.push({ bench: 'api', metric: `${metric}_p99_ms`, value: round(percentile(samples, 99)), ...extra });
    };
    if (wanted('home_timeline')) {
      const costs =
        statements && env.NESTBOX_DATABASE_URL ? await StatementCosts.start(env.NESTBOX_DATABASE_URL) : null;
      const timeline = await benchTimeline(daemon);
      if (costs)
        process.stderr.write(`home timeline, per request:\n${(await costs.report(TIMELINE_REQUESTS)).join('\n')}\n`);
      add('home_timeline', timeline.samples, { limit: 40, followed_posts: FOLLOWED_POSTS });
      figures.push({
        bench: 'api',
        metric: 'home_timeline_cpu_ms_per_request',
        value: round(timeline.cpuMs),
        unit: 'ms',
        limit: 40,
      });
      if (timeline.instructionsM !== null)
        figures.push({
          bench: 'api',
          metric: 'home_timeline_million_instructions_per_request',
          value: round(timeline.instructionsM),
          limit: 40,
        });
    }
    const server = env.NESTBOX_DATABASE_URL ? await serverPid(env.NESTBOX_DATABASE_URL) : null;
    if (wanted('search')) {
      const costs =
        statements && env.NESTBOX_DATABASE_URL ? await StatementCosts.start(env.NESTBOX_DATABASE_URL) : null;
      const search = await benchSearch(daemon, server);
      if (costs) process.stderr.write(`search, per search:\n${(await costs.report(SEARCHES)).join('\n')}\n`);
      add('search', search.samples, { statuses: STATUSES });
      figures.push({ bench: 'api', metric: 'search_cpu_ms_per_request', value: round(search.cpuMs), unit: 'ms' });
      if (search.serverCpuMs !== null)
        figures.push({
          bench: 'api',
          metric: 'search_server_cpu_ms_per_request',
          value: round(search.serverCpuMs),
          unit: 'ms',
        });
    }
    if (wanted('upload')) {
      const upload = await benchUpload(daemon);
      add('upload_answered', upload.answered, { bytes: '4MB' });
      add('upload_processed', upload.processed, { bytes: '4MB' });
    }
    if (wanted('streaming')) add('streaming_notification', await benchStreaming(daemon), { clients: CLIENTS });
    if (wanted('posting')) {
      const posting = await benchPosting(daemon, server, async () =>
        statements && env.NESTBOX_DATABASE_URL ? StatementCosts.start(env.NESTBOX_DATABASE_URL) : null,
      );
      const costs = posting.started;
      if (costs)
        process.stderr.write(`posting, per post:\n${(await costs.report(posting.samples.length)).join('\n')}\n`);
      add('post_status', posting.samples, { clients: POSTING_CLIENTS });
      figures.push(
        { bench: 'api', metric: 'post_status_per_s', value: round(posting.perSecond), clients: POSTING_CLIENTS },
        {
          bench: 'api',
          metric: 'post_status_cpu_ms_per_request',
          value: round(posting.cpuMs),
          unit: 'ms',
          clients: POSTING_CLIENTS,
        },
      );
      if (posting.serverCpuMs !== null)
        figures.push({
          bench: 'api',
          metric: 'post_status_server_cpu_ms_per_request',
          value: round(posting.serverCpuMs),
          unit: 'ms',
          clients: POSTING_CLIENTS,
        });
    }
    return figures.map((figure) => ({ ...figure, database }));
  } finally {
    await daemon.stop();
  }
}
