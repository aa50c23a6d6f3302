/**
 * Federation benchmark: two daemons on loopback; 50 accounts on the second follow one account on
 * the first. Measures the time from a post (API call) to its arrival on the followers' server
 * (visible there through the API), p50/p99 over a series of posts, and deliveries per second
 * for a burst of posts. Followers on one server share its inbox, as Mastodon delivers.
 */
import type { Bench } from './index.js';
import { percentile, report, round, type Figure } from './stats.js';
import { domainOf, resolveAccount, startFederatedDaemon } from '../../test/helpers/federation.js';

const FOLLOWERS = 50;
/** The parts of Mastodon's Account and Status this bench reads. */
type Account = { id: string; followers_count: number; statuses_count: number };
type Status = { uri: string };

async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const bench: Bench = {
  description: `post → arrival at ${FOLLOWERS} followers on a second daemon (p50/p99), deliveries per second [posts] [burst] [--synchronous=full|normal]`,
  async run(args) {
    // `--synchronous=full|normal` runs both daemons at that SQLite level (FULL against NORMAL).
    const level = args.find((arg) => arg.startsWith('--synchronous='))?.slice('--synchronous='.length);
    const [posts = 40, burst = 100] = args.filter((arg) => !arg.startsWith('--')).map(Number);
    const env: Record<string, string> = level ? { NESTBOX_SQLITE_SYNCHRONOUS: level } : {};
    const [A, B] = await Promise.all([startFederatedDaemon({ env }), startFederatedDaemon({ env })]);
    try {
      const alice = await A.account('alice');
      const followers = [];
      for (let n = 0; n < FOLLOWERS; n += 1) followers.push(await B.account(`follower${n}`));
      const aliceOnB = (await resolveAccount(B, followers[0].token, `alice@${domainOf(A)}`)) as Account;
      for (const follower of followers) await B.api(follower.token, 'POST', `/api/v1/accounts/${aliceOnB.id}/follow`);
      await waitFor(
        async () =>
          (await A.api<Account>(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.followers_count === FOLLOWERS,
      );
      const reader = followers[FOLLOWERS - 1];
      const arrived = async (uri: string) => {
        const list = (await B.api<Status[]>(reader.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses?limit=5`))
          .body;
        return list.some((s) => s.uri === uri);
      };

      const latencies: number[] = [];
      for (let n = 0; n < posts; n += 1) {
        const started = performance.now();
        const { body } = await A.api<Status>(alice.token, 'POST', '/api/v1/statuses', { status: `post ${n}` });
        await waitFor(() => arrived(body.uri));
        latencies.push(performance.now() - started);
      }

      const uris: string[] = [];
      const started = performance.now();
      for (let n = 0; n < burst; n += 8) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(8, burst - n) }, (_, i) =>
            A.api<Status>(alice.token, 'POST', '/api/v1/statuses', { status: `burst ${n + i}` }),
          ),
        );
        uris.push(...batch.map((r) => r.body.uri));
      }
      // Every burst post has arrived when B counts all of alice's statuses.
      await waitFor(
        async () =>
          (await B.api<Account>(reader.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.statuses_count >=
          posts + uris.length,
        60_000,
      );
      const seconds = (performance.now() - started) / 1000;

      report(
        'federation',
        (
          [
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
          ] as Figure[]
        ).map((figure) => ({ ...figure, synchronous: level ?? 'default' })),
      );
    } finally {
      await Promise.all([A.stop(), B.stop()]);
    }
  },
};
