/**
 * PostgreSQL's baseline is SQLite's schema: the same tables with the same columns in the same
 * order, the same named indexes, and the rules SQLite holds in triggers giving the same rows when
 * the same writes run on both engines (docs/architecture.md §8.5).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../daemon/store/db.js';
import type { Engine } from '../../daemon/store/dialect.js';
import { EngineDatabases } from '../helpers/engines.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

/** SQLite's own tables, knex's, and FTS5's index tables (PostgreSQL indexes expressions instead). */
const notShared = (table: string) => /^(sqlite_|knex_)|_fts($|_)/.test(table);

async function columns(engine: Engine, db: Db): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  if (engine === 'sqlite') {
    const names: Array<{ name: string }> = await db.raw(`SELECT name FROM sqlite_master WHERE type = 'table'`);
    for (const { name } of names.filter((row) => !notShared(row.name))) {
      const info: Array<{ name: string }> = await db.raw(`PRAGMA table_info(${JSON.stringify(name)})`);
      tables[name] = info.map((column) => column.name);
    }
  } else {
    // Generated columns (the stored search vectors) are PostgreSQL's counterpart of the FTS5 tables.
    const { rows } = await db.raw<{ rows: Array<{ table_name: string; column_name: string }> }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'
       AND is_generated = 'NEVER' ORDER BY table_name, ordinal_position`,
    );
    for (const row of rows.filter((entry) => !notShared(entry.table_name)))
      (tables[row.table_name] ??= []).push(row.column_name);
  }
  return tables;
}

async function indexNames(engine: Engine, db: Db): Promise<string[]> {
  if (engine === 'sqlite') {
    const rows: Array<{ name: string; tbl_name: string }> = await db.raw(
      `SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
    );
    return rows.filter((row) => !notShared(row.tbl_name)).map((row) => row.name);
  }
  const { rows } = await db.raw<{ rows: Array<{ indexname: string }> }>(
    `SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`,
  );
  return rows.map((row) => row.indexname);
}

test('the PostgreSQL baseline has SQLite’s tables, each with its columns in the same order', async () => {
  const sqlite = await columns('sqlite', await databases.get('sqlite'));
  const postgres = await columns('postgres', await databases.get('postgres'));
  assert.ok(Object.keys(sqlite).length > 50, 'the whole schema is compared');
  assert.equal(Object.keys(postgres).sort(), Object.keys(sqlite).sort());
  for (const table of Object.keys(sqlite)) assert.equal(postgres[table], sqlite[table], table);
});

test('every index SQLite has by name, PostgreSQL has too', async () => {
  const postgres = new Set(await indexNames('postgres', await databases.get('postgres')));
  const missing = (await indexNames('sqlite', await databases.get('sqlite'))).filter((name) => !postgres.has(name));
  assert.equal(missing, []);
});

const CREATED = '2026-01-01T00:00:00.000Z';

/** Runs the same writes on `db` and returns what the trigger rules made of them. */
async function scenario(db: Db): Promise<Record<string, unknown>> {
  const account = async (id: string, username: string, local: boolean) => {
    await db('accounts').insert({
      id,
      username,
      domain: local ? null : 'peer.example',
      uri: `u:${id}`,
      created_at: CREATED,
      updated_at: CREATED,
    });
    if (local)
      await db('users').insert({
        account_id: id,
        email: `${username}@x.test`,
        password_hash: 'x',
        created_at: CREATED,
      });
  };
  const status = (id: string, accountId: string, visibility = 'public', conversationId: number | null = null) =>
    db('statuses').insert({
      id,
      account_id: accountId,
      uri: `s:${id}`,
      visibility,
      conversation_id: conversationId,
      created_at: CREATED,
      updated_at: CREATED,
    });
  // Snowflake-sized ids: past 2^53, where an id kept as a double would be rounded.
  const [alice, bob, carol] = ['9007199254740993001', '9007199254740993002', '9007199254740993003'];
  await account(alice, 'alice', true);
  await account(bob, 'bob', true);
  await account(carol, 'carol', false);
  await status('9107199254740993001', bob);
  await db('follows').insert({ account_id: alice, target_account_id: bob, created_at: CREATED });
  await status('9107199254740993002', bob);
  await status('9107199254740993003', carol);
  const [tag] = await db('tags').insert({ name: 'birds', created_at: CREATED }).returning<Array<{ id: number }>>('id');
  await db('tag_follows').insert({ account_id: alice, tag_id: tag.id, created_at: CREATED });
  await db('status_tags').insert({ status_id: '9107199254740993003', tag_id: tag.id });
  const feedBefore = await feed(db);
  await db('follows').where({ account_id: alice, target_account_id: bob }).delete();
  const feedAfterUnfollow = await feed(db);
  await db('tag_follows').where({ account_id: alice }).delete();
  // A filtered direct mention from carol: a notification request, and the conversation held back.
  const [conversation] = await db('conversations')
    .insert({ created_at: CREATED })
    .returning<Array<{ id: number }>>('id');
  await status('9107199254740993004', carol, 'direct', conversation.id);
  await db('mentions').insert({ status_id: '9107199254740993004', account_id: alice });
  await db('account_conversations').insert({
    account_id: alice,
    conversation_id: conversation.id,
    last_status_id: '9107199254740993004',
    unread: true,
  });
  const notification = {
    account_id: alice,
    from_account_id: carol,
    type: 'mention',
    status_id: '9107199254740993004',
    created_at: CREATED,
  };
  await db('notifications').insert({ ...notification, filtered: true });
  const heldBack = {
    requests: await rows(db, 'notification_requests', 'notifications_count'),
    conversations: await rows(db, 'account_conversations', 'unread'),
  };
  await db('notifications').where({ account_id: alice }).update({ filtered: false });
  const accepted = {
    requests: await rows(db, 'notification_requests', 'notifications_count'),
    conversations: await rows(db, 'account_conversations', 'unread'),
  };
  await db('accounts').where({ id: bob }).update({ display_name: 'Bob' });
  // Statuses' versions are not compared: this scenario is one transaction, in which PostgreSQL moves
  // a status's version once (test/store/render-version-once.test.ts).
  const accountVersions = await db('accounts').select(db.raw('CAST(id AS TEXT) AS id'), 'version').orderBy('id');
  return { feedBefore, feedAfterUnfollow, heldBack, accepted, accountVersions };
}

function feed(db: Db): Promise<unknown[]> {
  return db('home_feed')
    .select(db.raw('CAST(account_id AS TEXT) AS account_id'), db.raw('CAST(status_id AS TEXT) AS status_id'))
    .orderBy(['account_id', 'status_id']);
}

async function rows(db: Db, table: string, column: string): Promise<unknown[]> {
  return (await db(table).select(db.raw('CAST(account_id AS TEXT) AS account_id'), column)).map(
    (row: Record<string, unknown>) => ({
      ...row,
      [column]: Number(row[column]),
    }),
  );
}

/** Thrown to undo a scenario: the other tests of the file see the database as the migration left it. */
const UNDO = new Error('undo');

async function undone(db: Db): Promise<Record<string, unknown>> {
  let result: Record<string, unknown> = {};
  try {
    await db.transaction(async (trx) => {
      result = await scenario(trx);
      throw UNDO;
    });
  } catch (error) {
    if (error !== UNDO) throw error;
  }
  return result;
}

test('the rules held in triggers make the same rows on both engines', async () => {
  const sqlite = await undone(await databases.get('sqlite'));
  const postgres = await undone(await databases.get('postgres'));
  const [alice, bob] = ['9007199254740993001', '9007199254740993002'];
  const entry = (account: string, status: string) => ({
    account_id: account,
    status_id: `910719925474099300${status}`,
  });
  // What the rules must do, checked on SQLite, the reference: then PostgreSQL must agree row for row.
  assert.equal(sqlite.feedBefore, [
    entry(alice, '1'),
    entry(alice, '2'),
    entry(alice, '3'),
    entry(bob, '1'),
    entry(bob, '2'),
  ]);
  assert.equal(sqlite.feedAfterUnfollow, [entry(alice, '3'), entry(bob, '1'), entry(bob, '2')]);
  assert.equal(sqlite.heldBack, { requests: [{ account_id: alice, notifications_count: 1 }], conversations: [] });
  assert.equal(sqlite.accepted, { requests: [], conversations: [{ account_id: alice, unread: 1 }] });
  for (const key of Object.keys(sqlite)) assert.equal(postgres[key], sqlite[key], key);
});

test.run();
