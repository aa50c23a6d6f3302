/**
 * How many statements the daemon sends PostgreSQL to post a status (mentions, media, a poll), counted
 * by the server itself: pg_stat_statements on a cluster of this suite's own (the library must be
 * preloaded), every call a round trip of the daemon's (triggers' statements are not counted: they
 * run inside the server). The ceiling fails the suite when a change adds statements to posting.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { clusterFolder, clusterUrl, databaseUrl, removeCluster, startClusterIn } from '../helpers/postgres-cluster.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { uploadPng } from '../helpers/media-files.js';

const DATABASE = 'nestbox_round_trips';

interface Call {
  query: string;
  calls: number;
}

let folder: string;
let stats: pg.Client;
let h: SocialHarness;

test.before(async () => {
  folder = clusterFolder();
  await startClusterIn(folder, ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_utility=on']);
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
async function callsSinceReset(): Promise<Call[]> {
  const { rows } = await stats.query<Call>(
    `SELECT query, CAST(sum(calls) AS integer) AS calls FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query <> 'SELECT 1'
    GROUP BY query ORDER BY sum(calls) DESC, query`,
    [DATABASE],
  );
  return rows;
}

/**
 * The calls once the daemon is done with what the post set off after its answer (the streams',
 * federation's and the notifications' reads): the count no longer moves between two looks.
 */
async function settledCalls(): Promise<Call[]> {
  let last = -1;
  for (;;) {
    const calls = await callsSinceReset();
    if (total(calls) === last) return calls;
    last = total(calls);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

async function reset(): Promise<void> {
  await stats.query('SELECT pg_stat_statements_reset()');
}

function total(calls: readonly Call[]): number {
  return calls.reduce((sum, call) => sum + call.calls, 0);
}

function describe(calls: readonly Call[]): string {
  return calls.map((call) => `${call.calls} × ${call.query.replace(/\s+/g, ' ').slice(0, 160)}`).join('\n');
}

async function post(author: TestAccount, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await h.api<{ id: string }>(author.token, 'POST', '/api/v1/statuses', { status: text, ...extra });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.id;
}

/** Statements that write or frame the write transaction (the rest are reads). */
function writes(calls: readonly Call[]): number {
  return total(calls.filter((call) => /^\s*(insert|update|delete|begin|commit)\b/i.test(call.query)));
}

interface Case {
  name: string;
  text: string;
  extra: Record<string, unknown>;
  /**
   * Ceilings: every statement of the post, the reads its answer sets off included (one of slack:
   * they are counted once the count stops moving), and those that write (exact).
   */
  most: { all: number; writes: number };
}

test('posting a status with mentions, media, a hashtag or a poll: a ceiling on its statements', async () => {
  const alice = await h.account('alice');
  await h.account('bob');
  await h.account('carol');
  // Warm: the first posts fill what the daemon keeps (grants, prepared statements, tags).
  await post(alice, 'warming up @bob #nestbox', { media_ids: [await uploadPng(h.url, alice.token)] });
  await post(alice, 'warming up @carol', { poll: { options: ['yes', 'no'], expires_in: 3600 } });
  const media = await uploadPng(h.url, alice.token);
  const cases: Case[] = [
    { name: 'plain', text: 'hello', extra: {}, most: { all: 16, writes: 6 } },
    {
      name: 'two mentions, a hashtag, an image',
      text: 'hello @bob and @carol #nestbox',
      extra: { media_ids: [media] },
      most: { all: 32, writes: 13 },
    },
    {
      name: 'two mentions, a poll',
      text: 'hello @bob and @carol',
      extra: { poll: { options: ['yes', 'no'], expires_in: 3600 } },
      most: { all: 26, writes: 10 },
    },
  ];
  for (const { name, text, extra, most } of cases) {
    await settledCalls();
    await reset();
    await post(alice, text, extra);
    const calls = await settledCalls();
    const figures = `${name}: ${total(calls)} statements, ${writes(calls)} writing`;
    console.log(`${figures}\n${describe(calls)}\n`);
    assert.ok(total(calls) <= most.all, `${figures}: at most ${most.all} in all`);
    assert.ok(writes(calls) <= most.writes, `${figures}: at most ${most.writes} writing`);
  }
});

test.run();
