/**
 * How many statements the daemon sends PostgreSQL to post a status (mentions, media, a poll), counted
 * by the server itself: pg_stat_statements on a cluster of this suite's own (the library must be
 * preloaded), every call a round trip of the daemon's (triggers' statements are not counted: they
 * run inside the server). The ceiling fails the suite when a change adds statements to posting.
 * Then a post delivered to followers on a second daemon: the sender's statements (queueing,
 * claiming, marking done) and the receiver's (its inbox storing the status). And the daemon's own
 * commits announce nothing on LISTEN/NOTIFY, where another process's do.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { clusterFolder, clusterUrl, databaseUrl, removeCluster, startClusterIn } from '../helpers/postgres-cluster.js';
import type { SocialHarness, TestAccount } from '../helpers/social.js';
import { domainOf, eventually, resolveAccount, startFederatedDaemon } from '../helpers/federation.js';
import { uploadPng } from '../helpers/media-files.js';
import { DATA_VERSION_CHANNEL } from '../../daemon/store/migrations/postgres/announce-writes.js';

const DATABASE = 'nestbox_round_trips';
/** The second daemon's, for the delivery. */
const PEER_DATABASE = 'nestbox_round_trips_peer';
/** Ceilings on a delivered post's statements (one of slack each, as for posting below). */
const SENDER_MOST = 15;
const RECEIVER_MOST = 9;
/** The role the test reads the peer's rows as, so that its reads are not counted. */
const PROBE = 'round_trips_probe';

interface Call {
  query: string;
  calls: number;
}

let folder: string;
let stats: pg.Client;
let h: SocialHarness;
let peer: SocialHarness | undefined;

test.before(async () => {
  folder = clusterFolder();
  await startClusterIn(folder, ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_utility=on']);
  stats = new pg.Client({ connectionString: clusterUrl(folder) });
  await stats.connect();
  await stats.query('CREATE EXTENSION pg_stat_statements');
  await stats.query(`CREATE DATABASE ${DATABASE}`);
  await stats.query(`CREATE DATABASE ${PEER_DATABASE}`);
  await stats.query(`CREATE ROLE ${PROBE} LOGIN IN ROLE pg_read_all_data`);
  h = await startFederatedDaemon({ env: { NESTBOX_DATABASE_URL: databaseUrl(clusterUrl(folder), DATABASE) } });
});

test.after(async () => {
  await peer?.stop();
  await h?.stop();
  await stats?.end();
  await removeCluster(folder);
});

/** The daemon's statements in its database since the last reset, but the server watch's probe (as the server normalises it). */
async function callsSinceReset(database = DATABASE): Promise<Call[]> {
  const { rows } = await stats.query<Call>(
    `SELECT query, CAST(sum(calls) AS integer) AS calls FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query NOT IN ('SELECT 1', 'SELECT $1')
      AND userid <> (SELECT oid FROM pg_roles WHERE rolname = $2)
    GROUP BY query ORDER BY sum(calls) DESC, query`,
    [database, PROBE],
  );
  return rows;
}

/** Longer than the instance figures wait before they are read again after a change (instance-counts.ts). */
const SETTLE_MS = 800;

/**
 * The calls once the daemon is done with what the post set off after its answer (the streams',
 * federation's, the notifications' and the instance figures' reads): the count no longer moves
 * between two looks.
 */
async function settledCalls(database = DATABASE): Promise<Call[]> {
  let last = -1;
  for (;;) {
    const calls = await callsSinceReset(database);
    if (total(calls) === last) return calls;
    last = total(calls);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
}

/**
 * Resets the counts where the daemon's jobs of every minute (expired mutes, scheduled statuses)
 * will not run before the next look: from the 3rd to the 40th second of a minute.
 */
async function reset(): Promise<void> {
  const second = new Date().getSeconds();
  if (second < 3 || second > 40) await new Promise((resolve) => setTimeout(resolve, ((63 - second) % 60) * 1000));
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

/** Statements that write (also from a WITH) or frame the write transaction (the rest are reads). */
function writes(calls: readonly Call[]): number {
  return total(
    calls.filter(
      (call) =>
        /^\s*(insert|update|delete|begin|commit)\b/i.test(call.query) ||
        /^\s*with\b[\s\S]*\b(insert|update|delete)\b/i.test(call.query),
    ),
  );
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
    { name: 'plain', text: 'hello', extra: {}, most: { all: 12, writes: 4 } },
    {
      name: 'two mentions, a hashtag, an image',
      text: 'hello @bob and @carol #nestbox',
      extra: { media_ids: [media] },
      most: { all: 24, writes: 8 },
    },
    {
      name: 'two mentions, a poll',
      text: 'hello @bob and @carol',
      extra: { poll: { options: ['yes', 'no'], expires_in: 3600 } },
      most: { all: 21, writes: 7 },
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

test('a post delivered to three followers on another daemon: the statements on each side', async () => {
  peer = await startFederatedDaemon({
    env: { NESTBOX_DATABASE_URL: databaseUrl(clusterUrl(folder), PEER_DATABASE) },
  });
  const author = await h.account('dora');
  const followers = [await peer.account('eve'), await peer.account('finn'), await peer.account('gus')];
  const dora = await resolveAccount(peer, followers[0].token, `dora@${domainOf(h)}`);
  for (const follower of followers) await peer.api(follower.token, 'POST', `/api/v1/accounts/${dora.id}/follow`);
  await eventually(
    'three followers',
    async () =>
      (await h.api<{ followers_count: number }>(author.token, 'GET', `/api/v1/accounts/${author.id}`)).body
        .followers_count === 3,
  );
  const probe = new pg.Client({ host: folder, user: PROBE, database: PEER_DATABASE });
  await probe.connect();
  try {
    const arrived = async (uri: string) => {
      const { rows } = await probe.query('SELECT 1 FROM statuses WHERE uri = $1', [uri]);
      return rows.length > 0;
    };
    // Warm: the first delivery fetches the author's actor and key.
    const first = await h.api<{ uri: string }>(author.token, 'POST', '/api/v1/statuses', { status: 'warming up' });
    await eventually('the first post on the peer', () => arrived(first.body.uri));
    await Promise.all([settledCalls(), settledCalls(PEER_DATABASE)]);
    await reset();
    const posted = await h.api<{ uri: string }>(author.token, 'POST', '/api/v1/statuses', { status: 'to the peers' });
    await eventually('the post on the peer', () => arrived(posted.body.uri));
    const [sender, receiver] = await Promise.all([settledCalls(), settledCalls(PEER_DATABASE)]);
    console.log(`sender: ${total(sender)} statements\n${describe(sender)}\n`);
    console.log(`receiver: ${total(receiver)} statements\n${describe(receiver)}\n`);
    // The sender's count holds its post, the Note's render, the queueing, the claims and the removal.
    assert.ok(total(sender) <= SENDER_MOST, `the sender: ${total(sender)}, at most ${SENDER_MOST}`);
    assert.ok(total(receiver) <= RECEIVER_MOST, `the receiver: ${total(receiver)}, at most ${RECEIVER_MOST}`);
  } finally {
    await probe.end();
  }
});

test("the daemon's commits announce nothing (it counts its own); another process's commit is announced", async () => {
  const author = await h.account('hal');
  const url = databaseUrl(clusterUrl(folder), DATABASE);
  const listener = new pg.Client({ connectionString: url });
  const other = new pg.Client({ connectionString: url });
  await Promise.all([listener.connect(), other.connect()]);
  try {
    const heard: number[] = [];
    listener.on('notification', ({ processId }) => heard.push(processId));
    await listener.query(`LISTEN ${DATA_VERSION_CHANNEL}`);
    for (const text of ['one', 'two', 'three']) await post(author, text);
    await h.api(author.token, 'POST', '/api/v1/markers', { notifications: { last_read_id: '1' } });
    // Announcements reach a listener in commit order: once the fence's is in, the posts' would be.
    const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await other.query(`INSERT INTO settings (key, value) VALUES ('announce-fence', '1')`);
    await eventually('the fence announced', async () => heard.includes(rows[0].pid));
    assert.equal(heard, [rows[0].pid], 'only the other process announced');
  } finally {
    await Promise.all([listener.end(), other.end()]);
  }
});

test.run();
