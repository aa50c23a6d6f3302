/**
 * Federation benchmark: two daemons on loopback; 50 accounts on the second follow one account on
 * the first. Measures the time from a post (API call) to its arrival on the followers' server
 * (visible there through the API), p50/p99 over a series of posts, and deliveries per second
 * for a burst of posts. Followers on one server share its inbox, as Mastodon delivers.
 * `--database postgres`: the same scenario again with both daemons on databases of a throwaway
 * PostgreSQL cluster (postgres-cluster.ts), each figure naming its `database`; `--server-core`:
 * that cluster's server on a core of its own (server-core.ts).
 */
import type { Bench } from './index.js';
import { cpuMs, percentile, report, round, type Figure } from './stats.js';
import { BACKGROUND, serverCpuByDatabase, serverPid } from './server-cpu.js';
import { domainOf, resolveAccount, startFederatedDaemon } from '../../test/helpers/federation.js';
import { BenchCluster, databasesOf } from './postgres-cluster.js';
import { describeSplit, serverCoreOf } from './server-core.js';
import { loadConfig } from '../../daemon/config.js';
import { AdminTool } from '../../daemon/social/admin.js';
import { ALL_USER_SCOPES, type SocialHarness, type TestAccount } from '../../test/helpers/social.js';

const FOLLOWERS = 50;
/** The parts of Mastodon's Account and Status this bench reads. */
type Account = { id: string; followers_count: number; statuses_count: number };
type Status = { uri: string };

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const bench: Bench = {
  description: `post → arrival at ${FOLLOWERS} followers on a second daemon (p50/p99), deliveries per second [posts] [burst] [--synchronous=full|normal] [--database postgres] [--server-core]`,
  async run(args) {
    // `--synchronous=full|normal` runs both daemons at that SQLite level (FULL against NORMAL).
    const level = args.find((arg) => arg.startsWith('--synchronous='))?.slice('--synchronous='.length);
    const databases = databasesOf(
      args.find((arg) => arg.startsWith('--database='))?.slice('--database='.length) ??
        (args.includes('--database') ? args[args.indexOf('--database') + 1] : undefined),
    );
    const numbers = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--database');
    const [posts = 40, burst = 100] = numbers.map(Number);
    const env: Record<string, string> = level ? { NESTBOX_SQLITE_SYNCHRONOUS: level } : {};
    const split = serverCoreOf(args);
    process.stderr.write(`[bench] ${describeSplit(split)}\n`);
    const cluster = databases.includes('postgres') ? await BenchCluster.start([], true, split) : null;
    try {
      for (const database of databases) {
        const on = async () =>
          database === 'postgres' ? { ...env, NESTBOX_DATABASE_URL: await cluster!.createDatabase() } : env;
        process.stderr.write(`[bench] federation on ${database}\n`);
        const measured = await scenario(await on(), await on(), posts, burst).catch((error: Error) => {
          throw new Error(`on ${database}: ${error.message}`);
        });
        // Each engine's figures as soon as they are measured: a route not yet on PostgreSQL stops the run there.
        report(
          'federation',
          measured.map((figure) => ({ ...figure, synchronous: level ?? 'default', database })),
        );
      }
    } finally {
      await cluster?.stop();
    }
  },
};

/** The bench's scenario on two daemons started with `envA` and `envB`. */
async function scenario(
  envA: Record<string, string>,
  envB: Record<string, string>,
  posts: number,
  burst: number,
): Promise<Figure[]> {
  const [A, B] = await Promise.all([startFederatedDaemon({ env: envA }), startFederatedDaemon({ env: envB })]);
  const after: Array<() => Promise<void>> = [];
  try {
    const [onA, onB] = await Promise.all([accountMaker(A, envA), accountMaker(B, envB)]);
    after.push(
      () => onA.close(),
      () => onB.close(),
    );
    const alice = await onA.make('alice');
    const followers = [];
    for (let n = 0; n < FOLLOWERS; n += 1) followers.push(await onB.make(`follower${n}`));
    const aliceOnB = (await resolveAccount(B, followers[0].token, `alice@${domainOf(A)}`)) as Account;
    for (const follower of followers) await B.api(follower.token, 'POST', `/api/v1/accounts/${aliceOnB.id}/follow`);
    // Set-up, not measured: 50 follows and their Accepts take long on a loaded machine.
    await waitFor(
      `${FOLLOWERS} followers`,
      async () =>
        (await A.api<Account>(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.followers_count === FOLLOWERS,
      120_000,
    );
    const reader = followers[FOLLOWERS - 1];
    const arrived = async (uri: string) => {
      const list = (await B.api<Status[]>(reader.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses?limit=5`))
        .body;
      return list.some((s) => s.uri === uri);
    };

    // Posts `count` statuses 8 at a time; resolves once they are all answered, with the seconds it took.
    let sent = 0;
    const postBurst = async (count: number, label: string): Promise<number> => {
      const began = performance.now();
      for (let n = 0; n < count; n += 8) {
        await Promise.all(
          Array.from({ length: Math.min(8, count - n) }, (_, i) =>
            A.api<Status>(alice.token, 'POST', '/api/v1/statuses', { status: `${label} ${n + i}` }),
          ),
        );
      }
      sent += count;
      return (performance.now() - began) / 1000;
    };
    // Every post has arrived when B counts all of alice's statuses.
    const allArrived = () =>
      waitFor(
        'the burst on the second daemon',
        async () =>
          (await B.api<Account>(reader.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.statuses_count >= sent,
        60_000,
      );
    // A first burst, not measured: each database connection then has its statements planned, as
    // in a daemon that has been running a while (PostgreSQL plans a prepared statement anew on
    // each of its first five calls on a connection), before the posts one at a time and the burst.
    await postBurst(burst, 'warm-up');
    await allArrived();

    const latencies: number[] = [];
    const answers: number[] = [];
    for (let n = 0; n < posts; n += 1) {
      const started = performance.now();
      const { body } = await A.api<Status>(alice.token, 'POST', '/api/v1/statuses', { status: `post ${n}` });
      answers.push(performance.now() - started);
      await waitFor(`post ${n} on the second daemon`, () => arrived(body.uri));
      latencies.push(performance.now() - started);
    }
    sent += posts;

    const cpu = await cpuMeter(A, B, [envA, envB]);
    const started = performance.now();
    const postingSeconds = await postBurst(burst, 'burst');
    await allArrived();
    const seconds = (performance.now() - started) / 1000;
    const used = cpu();

    return [
      {
        metric: 'post_to_arrival_p50_ms',
        value: round(percentile(latencies, 50)),
        unit: 'ms',
        followers: FOLLOWERS,
        posts,
      },
      {
        metric: 'post_to_arrival_p99_ms',
        value: round(percentile(latencies, 99)),
        unit: 'ms',
        target: '< 2000',
        followers: FOLLOWERS,
        posts,
      },
      {
        metric: 'post_answered_p50_ms',
        value: round(percentile(answers, 50)),
        unit: 'ms',
        note: 'the same posts until the posting daemon answered',
        posts,
      },
      {
        metric: 'post_to_arrival_max_ms',
        value: round(Math.max(...latencies)),
        unit: 'ms',
        followers: FOLLOWERS,
        posts,
      },
      {
        metric: 'deliveries_per_s',
        value: round(burst / seconds, 1),
        unit: '/s',
        deliveries: burst,
        note: 'posts made 8 at a time, until the last arrived',
      },
      {
        metric: 'burst_posts_answered_per_s',
        value: round(burst / postingSeconds, 1),
        unit: '/s',
        note: 'the same posts until the last was answered on the posting daemon',
      },
      ...Object.entries(used).map(([side, ms]) => ({
        metric: `burst_${side}_cpu_ms_per_delivery`,
        value: round(ms / burst, 2),
        unit: 'ms',
        note: CPU_NOTES[side as Side],
      })),
    ];
  } finally {
    for (const close of after) await close();
    await Promise.all([A.stop(), B.stop()]);
  }
}

const CPU_NOTES = {
  sender: 'the posting daemon: the post, its Note, queueing and sending',
  receiver: "the followers' daemon: the inbox, and the bench's polling of it",
  sender_server: "PostgreSQL: the posting daemon's backends",
  receiver_server: "PostgreSQL: the followers' daemon's backends",
  background_server: 'PostgreSQL: its main process, background workers and ended sessions',
};
type Side = keyof typeof CPU_NOTES;

/**
 * CPU time (ms) each side spends from now until the returned function is called: the two daemons
 * and, on PostgreSQL, the server's processes (both daemons' databases are on one cluster).
 */
async function cpuMeter(
  sender: SocialHarness,
  receiver: SocialHarness,
  envs: [Record<string, string>, Record<string, string>],
): Promise<() => Partial<Record<Side, number>>> {
  const [senderUrl, receiverUrl] = envs.map((env) => env.NESTBOX_DATABASE_URL);
  const server = senderUrl === undefined ? null : await serverPid(senderUrl);
  const read = (): Partial<Record<Side, number>> => {
    const byDatabase = server === null ? null : serverCpuByDatabase(server);
    return {
      sender: cpuMs(sender.daemon.child.pid!),
      receiver: cpuMs(receiver.daemon.child.pid!),
      ...(byDatabase && {
        sender_server: byDatabase[new URL(senderUrl).pathname.slice(1)] ?? 0,
        receiver_server: byDatabase[new URL(receiverUrl).pathname.slice(1)] ?? 0,
        background_server: byDatabase[BACKGROUND],
      }),
    };
  };
  const before = read();
  return () => {
    const after = read();
    return Object.fromEntries(Object.entries(after).map(([side, ms]) => [side, ms - before[side as Side]!]));
  };
}

/**
 * Accounts made as `npm run admin` makes them, on the daemon's own database: the harness's admin
 * tool opens the data folder's SQLite file, which a daemon on PostgreSQL does not use.
 */
async function accountMaker(
  h: SocialHarness,
  env: Record<string, string>,
): Promise<{ make(username: string): Promise<TestAccount>; close(): Promise<void> }> {
  if (!env.NESTBOX_DATABASE_URL) return { make: (username) => h.account(username), close: async () => undefined };
  const config = loadConfig({ env: { NESTBOX_DATA_DIR: h.daemon.dataDir, NESTBOX_BASE_URL: h.url, ...env } });
  const admin = await AdminTool.open(config);
  return {
    async make(username) {
      const password = `pw-${username}-123`;
      const { id } = await admin.createAccount({ username, email: `${username}@bench.test`, password });
      return { id, username, token: (await admin.token({ username, scopes: ALL_USER_SCOPES })).accessToken };
    },
    close: () => admin.close(),
  };
}
