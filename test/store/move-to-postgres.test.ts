/**
 * `npm run admin -- move-to-postgres URL`: a populated instance made through the real API is moved
 * into an empty PostgreSQL database; every table holds the same rows on both engines; a daemon
 * started on PostgreSQL answers the same API calls with the same JSON. Each refusal (the daemon
 * running, a target holding tables, values PostgreSQL would refuse, a bad URL) is one line and
 * leaves the target as it was.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../daemon/store/db.js';
import { rawRows } from '../../daemon/store/dialect.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import { userTables } from '../../daemon/store/move/target.js';
import { runAdmin, type AdminRun } from '../helpers/admin-cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { FakePeer } from '../helpers/fake-peer.js';
import { eventually } from '../helpers/federation.js';
import { emptyDatabase, everyTable, populate, type Population } from '../helpers/instance-move.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/postgres-database.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

const PASSWORD = 'moving-day-secret';
const ALLOW_PRIVATE = { NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true' };

let h: SocialHarness;
let peer: FakePeer;
let people: Population;
let migrated: TestPostgres;
let target: { url: string; drop(): Promise<void> };
const folders: Array<{ remove(): void }> = [];

/** The target's URL with a password in it (the test cluster trusts the socket, so any password works). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

const move = (dataDir: string, ...args: string[]): Promise<AdminRun> =>
  runAdmin({ dataDir, baseUrl: h.url }, ['move-to-postgres', ...args]);

/** The lines of stderr that say why the move did not run (not the build's own output). */
function refusal(run: AdminRun): string[] {
  return run.stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('admin:'));
}

async function tablesOf(url: string): Promise<string[]> {
  const db = openPostgres(url, { poolSize: 1 });
  try {
    return await userTables(db);
  } finally {
    await db.destroy();
  }
}

test.before(async () => {
  peer = await FakePeer.start();
  h = await startSocialDaemon(ALLOW_PRIVATE, { keepDataDir: true });
  migrated = await createPostgresDatabase();
  target = await emptyDatabase(migrated.url, `moved_${process.pid}`);
  people = await populate(h, peer);
  await eventually('the remote mention', async () => {
    const seen = await h.api(people.alice.token, 'GET', '/api/v1/notifications?types[]=mention&include_filtered=true');
    return (seen.body as unknown[]).length > 0;
  });
});

test.after(async () => {
  await h?.stop().catch(() => undefined);
  await peer?.close();
  await target?.drop();
  await migrated?.drop();
  for (const folder of folders) folder.remove();
});

test('while the daemon runs the move refuses in one line and the target stays empty', async () => {
  const run = await move(h.daemon.dataDir, withPassword(target.url));
  assert.is(run.status, 1, run.stderr);
  assert.equal(refusal(run).length, 1, run.stderr);
  assert.match(refusal(run)[0], /daemon .* open: stop it first/);
  assert.not.match(run.stderr + run.stdout, new RegExp(PASSWORD));
  assert.equal(await tablesOf(target.url), []);
});

interface Call {
  token: string | null;
  path: string;
}

/** The calls compared before and after the move, each as one of the accounts would make it. */
function calls(): Call[] {
  const { owner, alice, bob } = people;
  const as = (token: string | null, ...paths: string[]) => paths.map((path) => ({ token, path }));
  return [
    ...as(null, '/api/v1/instance', '/api/v2/instance', `/api/v1/accounts/lookup?acct=alice`, '/users/alice'),
    ...as(
      alice.token,
      '/api/v1/accounts/verify_credentials',
      `/api/v1/accounts/${bob.id}`,
      `/api/v1/accounts/${alice.id}/statuses`,
    ),
    ...as(alice.token, `/api/v1/accounts/${alice.id}/followers`, `/api/v1/accounts/${alice.id}/following`),
    ...as(alice.token, `/api/v1/accounts/relationships?id[]=${bob.id}&id[]=${owner.id}`, '/api/v1/notifications'),
    ...as(
      alice.token,
      '/api/v1/notifications?include_filtered=true',
      '/api/v2/notifications',
      '/api/v1/timelines/home',
    ),
    ...as(bob.token, '/api/v1/follow_requests', '/api/v1/notifications', '/api/v1/accounts/verify_credentials'),
    ...as(
      owner.token,
      '/api/v1/timelines/home',
      '/api/v1/timelines/public',
      '/api/v1/timelines/tag/nestbox',
      '/api/v1/favourites',
    ),
    ...as(
      owner.token,
      '/api/nestbox/v1/networks',
      '/api/nestbox/v1/instance',
      '/api/v1/admin/accounts',
      '/api/v1/markers?timeline[]=home',
    ),
    ...as(owner.token, `/api/v1/accounts/lookup?acct=mallory@${peer.domain}`, '/api/v1/lists', '/api/v1/filters'),
  ];
}

interface Answer {
  status: number;
  body: unknown;
}

async function answers(url: string, list: readonly Call[]): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const call of list) {
    const response = await fetch(url + call.path, {
      headers: { accept: 'application/json', ...(call.token ? { authorization: `Bearer ${call.token}` } : {}) },
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* compared as text */
    }
    out.push({ status: response.status, body });
  }
  return out;
}

let before: Answer[] = [];
let dataDir = '';

test('the answers on SQLite are recorded; the daemon stops', async () => {
  before = await answers(h.url, calls());
  for (const [i, answer] of before.entries())
    assert.is(answer.status, 200, `${calls()[i].path}: ${JSON.stringify(answer.body)}`);
  dataDir = h.daemon.dataDir;
  folders.push({ remove: () => rmSync(dataDir, { recursive: true, force: true }) });
  await h.stop();
});

test('a target that holds a table is refused in one line and left as it was', async () => {
  const tables = await tablesOf(migrated.url);
  const run = await move(dataDir, migrated.url);
  assert.is(run.status, 1, run.stderr);
  assert.equal(refusal(run).length, 1, run.stderr);
  assert.match(refusal(run)[0], /already holds \d+ table\(s\).*needs an empty database/);
  assert.equal(await tablesOf(migrated.url), tables);
  assert.is(run.stdout, '');
});

test('a bad URL, or one where no server answers, is one line without the password', async () => {
  for (const bad of [
    'mysql://owner:moving-day-secret@db/nestbox',
    'postgres://owner:moving-day-secret@/nestbox',
    'nonsense',
  ]) {
    const run = await move(dataDir, bad);
    assert.is(run.status, 1, run.stderr);
    assert.equal(refusal(run).length, 1, run.stderr);
    assert.match(refusal(run)[0], /is not a PostgreSQL URL/);
    assert.not.match(run.stderr + run.stdout, new RegExp(PASSWORD));
  }
  const nowhere = tempDir();
  folders.push(nowhere);
  const missing = await move(
    dataDir,
    `postgres://owner:${PASSWORD}@localhost/nestbox?host=${encodeURIComponent(nowhere.path)}`,
  );
  assert.is(missing.status, 1, missing.stderr);
  assert.match(refusal(missing)[0], /cannot use postgres:\/\/\[credentials\]@localhost\/nestbox/);
  assert.not.match(missing.stderr + missing.stdout, new RegExp(PASSWORD));
  const usage = await move(dataDir);
  assert.is(usage.status, 2);
  assert.match(usage.stderr, /move-to-postgres takes one URL/);
});

test('values PostgreSQL would refuse are listed before anything is written', async () => {
  // A copy of the instance whose case-insensitive e-mail index was lost (a partial restore), with
  // rows that SQLite took and PostgreSQL will not.
  const copy = tempDir();
  folders.push(copy);
  const original = openDatabase({ filename: join(dataDir, 'nestbox.sqlite3') });
  await original.raw('VACUUM INTO ?', [join(copy.path, 'nestbox.sqlite3')]);
  await original.destroy();
  const db = openDatabase({ filename: join(copy.path, 'nestbox.sqlite3') });
  try {
    await db.raw('DROP INDEX users_email');
    await db.raw(`UPDATE users SET email = 'ALICE@example.test' WHERE email = 'owner@example.test'`);
    await db.raw(`UPDATE accounts SET note = 'a' || char(0) || 'b' WHERE username = 'alice'`);
    await db.raw(`UPDATE accounts SET display_name = CAST(X'426FC3' AS TEXT) WHERE username = 'bob'`);
    await db.raw(`UPDATE accounts SET fields = '[{"name": ' WHERE username = 'owner'`);
    await db.raw(`UPDATE accounts SET locked = 2 WHERE username = 'owner'`);
  } finally {
    await db.destroy();
  }
  const run = await move(copy.path, target.url);
  assert.is(run.status, 1, run.stderr);
  const [first, ...listed] = run.stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('admin:') || line.startsWith('  '));
  assert.match(first, /^admin: move-to-postgres: 5 value\(s\) in the SQLite database that PostgreSQL would refuse/);
  const text = listed.join('\n');
  assert.match(text, /accounts\.note \(row \d+\): text holding NUL/);
  assert.match(text, /accounts\.display_name \(row \d+\): invalid UTF-8/);
  assert.match(text, /accounts\.fields \(row \d+\): not valid JSON/);
  assert.match(text, /accounts\.locked \(row \d+\): not a boolean/);
  assert.match(text, /users: 2 rows share users_email \(lower\(email\) = "alice@example.test"\)/);
  assert.equal(await tablesOf(target.url), []);
});

test('a move killed half way leaves the target empty, so it can simply be run again', async () => {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'dist/bundle/admin.js'), 'move-to-postgres', target.url, '--batch-rows', '1'],
    {
      env: { PATH: process.env.PATH, NESTBOX_DATA_DIR: dataDir, NESTBOX_BASE_URL: h.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // Killed once rows are being copied: the schema and some rows are written, nothing committed.
      if (/move: \w+: [1-9]\d* rows copied/.test(stderr)) resolve();
    });
    child.once('exit', () => reject(new Error(`the move ended before it was killed:\n${stderr}`)));
  });
  child.kill('SIGKILL');
  await exited;
  // The server rolls the transaction back when it sees the connection closed.
  await eventually('the target empty again', async () => (await tablesOf(target.url)).length === 0);
});

test('the move copies every table: the same rows on both engines, the setting as the last line', async () => {
  const url = withPassword(target.url);
  const run = await move(dataDir, url, '--batch-rows', '2');
  assert.is(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.is(lines[lines.length - 1], `NESTBOX_DATABASE_URL=${url}`);
  assert.not.match(run.stderr, new RegExp(PASSWORD));
  assert.match(run.stderr, /move: statuses: \d+ rows copied/);
  assert.match(run.stderr, /counts and checksums verified/);
  const sqlite = openDatabase({ filename: join(dataDir, 'nestbox.sqlite3') });
  const postgres = openPostgres(target.url);
  try {
    const [fromSqlite, fromPostgres] = [await everyTable(postgres, sqlite), await everyTable(postgres, postgres)];
    assert.equal([...fromPostgres.keys()], [...fromSqlite.keys()]);
    for (const [table, rows] of fromSqlite) assert.equal(fromPostgres.get(table), rows, table);
    for (const table of [
      'accounts',
      'statuses',
      'media_attachments',
      'polls',
      'poll_votes',
      'follows',
      'follow_requests',
      'notifications',
      'home_feed',
      'federation_actors',
      'federation_deliveries',
      'connectivity_networks',
      'settings',
    ])
      assert.ok(fromSqlite.get(table)!.length > 0, `${table} has rows to move`);
    // The copied rows merged into the search indexes (no pending list left for searches to read).
    const pending = await rawRows<{ pages: string }>(
      postgres,
      `SELECT gin_clean_pending_list(CAST('statuses_search' AS regclass)) AS pages`,
    );
    assert.is(Number(pending[0].pages), 0);
  } finally {
    await sqlite.destroy();
    await postgres.destroy();
  }
});

test('a daemon on PostgreSQL answers the same calls with the same JSON', async () => {
  const daemon = await startDaemon({
    env: {
      ...ALLOW_PRIVATE,
      NESTBOX_DATABASE_URL: withPassword(target.url),
      NESTBOX_LOG_LEVEL: 'info',
      // The instance's answers name its streaming address: the same as before the move.
      NESTBOX_STREAMING_PORT: String(h.daemon.streamingPort),
    },
    dataDir,
    keepDataDir: true,
    port: h.daemon.port,
  });
  try {
    const list = calls();
    const after = await answers(daemon.url, list);
    assert.ok(list.length >= 25);
    for (const [i, call] of list.entries()) assert.equal(after[i], before[i], call.path);
  } finally {
    await daemon.stop();
  }
});

test.run();
