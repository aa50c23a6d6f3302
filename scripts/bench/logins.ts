/**
 * npm run bench -- logins [--logins N] [--seconds S]: the latency of a database-backed GET (the
 * home timeline, 20 statuses) alone, then while N clients sign in on the login form in a loop
 * (each sign-in one scrypt). Prints p50/p99/max of the GET in both phases, sign-ins per second and
 * how many were refused as busy (503). Password hashing that shared libuv's pool with SQLite made
 * the GET wait behind the hashes; on its own thread it should not.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { snowflakeAt } from '../../daemon/store/ids.js';
import { sha256 } from '../../daemon/social/oauth/secrets.js';
import { startDaemon, type RunningDaemon } from '../../test/helpers/daemon.js';
import { tempDir } from '../../test/helpers/paths.js';
import type { Bench } from './index.js';
import { percentile, report, round, type Figure } from './stats.js';

/** Accounts that sign in, each fewer times than the per-account limit allows in an hour. */
const SIGNERS = 400;
const FOLLOWED = 20;
const STATUSES = 2000;
const PASSWORD = 'bench-password-1';

export const bench: Bench = {
  description: 'home timeline GET p50/p99 alone and while N clients sign in (scrypt) in a loop',
  run,
};

async function seed(dataDir: string): Promise<void> {
  const db = openDatabase({ filename: join(dataDir, 'nestbox.sqlite3') });
  await migrate(db);
  const now = Date.now();
  const at = new Date(now).toISOString();
  // One hash in the stored format serves every account: seeding needs no hashing per account.
  const salt = randomBytes(16);
  const hash = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync(PASSWORD, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
  const accountId = (i: number) => snowflakeAt(now - 10_000_000 + i);
  await db.transaction(async (trx) => {
    for (let i = 0; i <= SIGNERS; i++) {
      await trx.raw(
        `INSERT INTO accounts (id, username, display_name, uri, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [
          accountId(i),
          `user${i}`,
          `User ${i}`,
          `http://127.0.0.1/users/user${i}`,
          `http://127.0.0.1/@user${i}`,
          at,
          at,
        ],
      );
      await trx.raw(
        `INSERT INTO users (account_id, email, password_hash, approved, created_at, confirmed_at) VALUES (?, ?, ?, 1, ?, ?)`,
        [accountId(i), `user${i}@bench.test`, hash, at, at],
      );
    }
    await trx.raw(
      `INSERT INTO oauth_tokens (token_hash, account_id, scopes, created_at) VALUES (?, ?, 'read write', ?)`,
      [sha256('token-0'), accountId(0), at],
    );
    for (let i = 1; i <= FOLLOWED; i++) {
      await trx.raw(`INSERT INTO follows (account_id, target_account_id, created_at) VALUES (?, ?, ?)`, [
        accountId(0),
        accountId(i),
        at,
      ]);
    }
    for (let n = 0; n < STATUSES; n++) {
      const id = snowflakeAt(now - 5_000_000 + n * 40);
      await trx.raw(
        `INSERT INTO statuses (id, account_id, uri, text, content, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'public', ?, ?)`,
        [id, accountId(1 + (n % FOLLOWED)), `http://127.0.0.1/s/${id}`, `status ${n}`, `<p>status ${n}</p>`, at, at],
      );
    }
  });
  await db.raw('ANALYZE');
  await db.destroy();
}

/** Sequential timeline GETs until `until()`; their latencies in ms. */
async function timelineLatencies(daemon: RunningDaemon, until: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  while (!until()) {
    const started = performance.now();
    const res = await daemon.fetch('/api/v1/timelines/home?limit=20', { headers: { authorization: 'Bearer token-0' } });
    const body = (await res.json()) as unknown[];
    if (!res.ok || body.length !== 20) throw new Error(`home timeline: ${res.status}`);
    samples.push(performance.now() - started);
  }
  return samples;
}

async function signInLoop(
  daemon: RunningDaemon,
  clientId: string,
  next: () => number,
  until: () => boolean,
  counts: Record<string, number>,
): Promise<void> {
  while (!until()) {
    const body = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
      scope: 'read',
      login: `user${1 + (next() % SIGNERS)}`,
      password: PASSWORD,
      decision: 'allow',
    });
    const res = await daemon.fetch('/oauth/authorize', { method: 'POST', body, redirect: 'manual' });
    await res.arrayBuffer();
    counts[res.status] = (counts[res.status] ?? 0) + 1;
    // A refused sign-in comes back at once: wait as a client told to retry would, a little.
    if (res.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { logins: { type: 'string', default: '8' }, seconds: { type: 'string', default: '10' } },
  });
  const logins = Math.max(1, Number(values.logins));
  const seconds = Math.max(1, Number(values.seconds));
  const data = tempDir('nestbox-bench-');
  await seed(data.path);
  const daemon = await startDaemon({ dataDir: data.path, env: { NESTBOX_LOG_LEVEL: 'info' }, startTimeoutMs: 60_000 });
  try {
    const app = (await (
      await daemon.fetch('/api/v1/apps', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }),
      })
    ).json()) as { client_id: string };
    await timelineLatencies(
      daemon,
      (
        (n) => () =>
          n-- <= 0
      )(30),
    );
    const phase = () => {
      const end = Date.now() + seconds * 1000;
      return () => Date.now() >= end;
    };

    const alone = await timelineLatencies(daemon, phase());
    const counts: Record<string, number> = {};
    let attempt = 0;
    const until = phase();
    const [during] = await Promise.all([
      timelineLatencies(daemon, until),
      ...Array.from({ length: logins }, () => signInLoop(daemon, app.client_id, () => attempt++, until, counts)),
    ]);
    const figures: Figure[] = [];
    for (const [label, samples] of [
      ['alone', alone],
      [`${logins} signing in`, during],
    ] as const) {
      figures.push(
        {
          metric: `timeline_p50_ms (${label})`,
          value: round(percentile(samples, 50)),
          unit: 'ms',
          requests: samples.length,
        },
        {
          metric: `timeline_p99_ms (${label})`,
          value: round(percentile(samples, 99)),
          unit: 'ms',
          requests: samples.length,
        },
        {
          metric: `timeline_max_ms (${label})`,
          value: round(percentile(samples, 100)),
          unit: 'ms',
          requests: samples.length,
        },
      );
    }
    figures.push(
      { metric: 'sign_ins_per_s', value: round((counts[200] ?? 0) / seconds), unit: '/s', logins },
      { metric: 'sign_ins_refused_busy', value: counts[503] ?? 0, unit: '', logins },
      {
        metric: 'sign_ins_other_answers',
        value: Object.entries(counts)
          .filter(([status]) => status !== '200' && status !== '503')
          .reduce((n, [, c]) => n + c, 0),
        unit: '',
        logins,
      },
    );
    report('logins', figures);
  } finally {
    await daemon.stop();
    data.remove();
  }
}
