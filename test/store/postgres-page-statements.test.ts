/**
 * How many statements an uncached notifications page (v2, grouped) sends PostgreSQL, counted by the
 * server itself: pg_stat_statements on a cluster of this suite's own. Once the page's statuses and
 * accounts are held by the render cache, a page is its own statement and one more for its statuses
 * (versions, the viewer's flags, visibility) and accounts together. A change that adds a statement
 * to the page fails the suite.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { clusterFolder, clusterUrl, databaseUrl, removeCluster, startClusterIn } from '../helpers/postgres-cluster.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

const DATABASE = 'nestbox_page_statements';

let folder: string;
let stats: pg.Client;
let h: SocialHarness;

test.before(async () => {
  folder = clusterFolder();
  await startClusterIn(folder, ['shared_preload_libraries=pg_stat_statements']);
  stats = new pg.Client({ connectionString: clusterUrl(folder) });
  await stats.connect();
  await stats.query('CREATE EXTENSION pg_stat_statements');
  await stats.query(`CREATE DATABASE ${DATABASE}`);
  h = await startSocialDaemon({ NESTBOX_DATABASE_URL: databaseUrl(clusterUrl(folder), DATABASE) });
});

test.after(async () => {
  await h?.stop();
  await stats?.end();
  await removeCluster(folder);
});

/** The daemon's statements in its database since the last reset, but the server watch's probe. */
async function calls(): Promise<Array<{ query: string; calls: number }>> {
  const { rows } = await stats.query<{ query: string; calls: number }>(
    `SELECT query, CAST(sum(calls) AS integer) AS calls FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query NOT IN ('SELECT 1', 'SELECT $1')
    GROUP BY query ORDER BY query`,
    [DATABASE],
  );
  return rows;
}

/** Longer than the instance figures wait before they are read again after a change (instance-counts.ts). */
const SETTLE_MS = 800;

/**
 * Resets the counts once the instance figures have been read again after the test's writes, and
 * where the daemon's jobs of every minute (expired mutes, scheduled statuses) will not run before
 * the next look: from the 3rd to the 40th second of a minute. `warm` runs first after a wait for
 * that second, so that the caches hold what the wait's jobs may have changed.
 */
async function reset(warm: () => Promise<unknown>): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const second = new Date().getSeconds();
  if (second < 3 || second > 40) {
    await new Promise((resolve) => setTimeout(resolve, ((63 - second) % 60) * 1000));
    await warm();
  }
  await stats.query('SELECT pg_stat_statements_reset()');
}

async function api(account: TestAccount, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await h.api(account.token, method, path, body);
  assert.is(answer.status, 200, `${method} ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

test('an uncached notifications page: its own statement and one for its statuses and accounts', async () => {
  const [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((name) => h.account(name)));
  for (let i = 0; i < 3; i++) {
    const { id } = (await api(alice, 'POST', '/api/v1/statuses', { status: `post ${i}` })) as { id: string };
    await api(bob, 'POST', `/api/v1/statuses/${id}/favourite`);
    await api(carol, 'POST', `/api/v1/statuses/${id}/reblog`);
    await api(bob, 'POST', '/api/v1/statuses', { status: `@alice about post ${i}` });
  }
  await api(carol, 'POST', `/api/v1/accounts/${alice.id}/follow`);
  // A max_id above every id changes the URL, not the page: the response cache never answers.
  let maxId = 2n ** 62n;
  const page = async () =>
    (await api(alice, 'GET', `/api/v2/notifications?limit=40&max_id=${--maxId}`)) as {
      notification_groups: unknown[];
      statuses: unknown[];
      accounts: unknown[];
    };
  // The first page reads the rows the render cache then holds: three statuses favourited and
  // reblogged (a group each), three mentions, one follow; alice's statuses and bob's mentions; bob
  // and carol.
  const first = await page();
  assert.is(first.notification_groups.length, 10, JSON.stringify(first.notification_groups));
  assert.is(first.statuses.length, 6);
  assert.is(first.accounts.length, 2);
  await reset(page);
  const again = await page();
  const sent = await calls();
  assert.equal(again, first);
  const described = sent.map((call) => `${call.calls} × ${call.query.replace(/\s+/g, ' ').slice(0, 120)}`);
  assert.equal(
    sent.map((call) => call.calls),
    [1, 1],
    described.join('\n'),
  );
  assert.ok(/WITH RECURSIVE/.test(sent.map((call) => call.query).join()), described.join('\n'));
});

test.run();
