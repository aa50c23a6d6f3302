import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../daemon/store/db.js';
import { rawRows } from '../../daemon/store/dialect.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import { migrate } from '../../daemon/store/migrate.js';
import { backupDatabase, listBackups } from '../../daemon/store/backup.js';
import { execFileSync } from 'node:child_process';
import { startDaemon } from '../helpers/daemon.js';
import { testEngine } from '../helpers/daemon-database.js';
import { openMigrated } from '../helpers/engines.js';
import { tempDir } from '../helpers/paths.js';
import { createPostgresDatabase } from '../helpers/postgres-database.js';
import { withTempDatabase } from '../helpers/temp-database.js';
import { openRepoContext } from '../social/repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';

test('a backup is a consistent, complete copy of the live database', async () => {
  await withTempDatabase(async (db, dir) => {
    await migrate(db);
    await db('settings').insert(Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })));
    const result = await backupDatabase(db, join(dir, 'backups'), 3);
    assert.ok(result.bytes > 0);
    const copy = openDatabase({ filename: result.path });
    try {
      const [{ integrity_check }] = await copy.raw('PRAGMA integrity_check');
      assert.is(integrity_check, 'ok');
      assert.is(Number((await copy('settings').count({ n: '*' }).first())!.n), 50);
    } finally {
      await copy.destroy();
    }
    assert.equal(
      readdirSync(join(dir, 'backups')).filter((n) => n.endsWith('.partial')),
      [],
    );
  });
});

test('only the last N backups are kept, the newest ones', async () => {
  await withTempDatabase(async (db, dir) => {
    await migrate(db);
    const backups = join(dir, 'backups');
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      made.push((await backupDatabase(db, backups, 2, new Date(Date.UTC(2026, 0, 1 + i)))).path);
    }
    const kept = await listBackups(backups);
    assert.equal(
      kept.map((name) => join(backups, name)),
      made.slice(-2),
    );
  });
});

test('on PostgreSQL a backup is pg_dump in its custom format, complete, and only the last N kept', async () => {
  const database = await openMigrated('postgres');
  const folder = tempDir();
  try {
    const { db } = database;
    await db('settings').insert(Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })));
    const made: string[] = [];
    for (let i = 0; i < 3; i += 1)
      made.push((await backupDatabase(db, folder.path, 2, new Date(Date.UTC(2026, 0, 1 + i)))).path);
    assert.match(made[2], /nestbox-20260103T000000000Z\.dump$/);
    assert.equal(
      readdirSync(folder.path).sort(),
      made.slice(-2).map((path) => path.slice(folder.path.length + 1)),
    );
    // pg_restore reads it back: the settings' 50 rows (and the 49 + 1 lines of COPY around them).
    const rows = execFileSync('pg_restore', ['--data-only', '--table=settings', '--file=-', made[2]], {
      encoding: 'utf8',
    });
    const copied = rows.slice(rows.indexOf('COPY public.settings'), rows.indexOf('\\.'));
    assert.is(copied.trim().split('\n').length, 51);
    assert.match(copied, /k49\tv49/);
  } finally {
    folder.remove();
    await database.close();
  }
});

/** Every table of the public schema with its rows' digest (each row as text, in a fixed order). */
async function tableDigests(db: Db): Promise<Record<string, string>> {
  const tables = await rawRows<{ name: string }>(
    db,
    `SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const digests: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await rawRows<{ rows: number; digest: string }>(
      db,
      `SELECT count(*) AS rows, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${name}" t`,
    );
    digests[name] = `${row.rows} ${row.digest}`;
  }
  return digests;
}

test('on PostgreSQL a backup restored with pg_restore into an empty database gives every row back', async () => {
  const store = await openRepoContext(Date.now, 'postgres');
  const folder = tempDir();
  const target = await createPostgresDatabase({ empty: true });
  const restored = openPostgres(target.url, { poolSize: 2 });
  try {
    const { db } = store.ctx;
    const [ann, bo] = [await store.account('ann'), await store.account('bo', { domain: 'b.example' })];
    await db('follows').insert({ id: store.ctx.ids.next(), account_id: ann, target_account_id: bo, created_at: AT });
    for (let i = 0; i < 20; i += 1) await store.status(i % 2 ? ann : bo);
    await store.token(ann);
    await db('settings').insert({ key: 'restored', value: 'yes' });
    const before = await tableDigests(db);
    assert.ok(Number(before.statuses.split(' ')[0]) === 20 && Number(before.home_feed.split(' ')[0]) > 0);

    const { path } = await backupDatabase(db, folder.path, 2);
    execFileSync('pg_restore', ['--exit-on-error', '--no-owner', `--dbname=${target.url}`, path]);
    assert.equal(await tableDigests(restored), before);
    // The restored database is one the daemon takes as it is: nothing left to migrate, and the
    // sequences carry on past the copied ids.
    await migrate(restored);
    assert.equal(await tableDigests(restored), before);
    const [app] = await restored('oauth_apps')
      .insert({
        name: 'after',
        redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
        scopes: 'read',
        client_id: 'after',
        client_secret: 's',
        created_at: AT,
      })
      .returning<Array<{ id: number }>>('id');
    assert.ok(app.id > Number((await db('oauth_apps').max({ id: 'id' }).first())!.id));
  } finally {
    await restored.destroy();
    await target.drop();
    folder.remove();
    await store.close();
  }
});

test('the daemon runs the backup job on its cron schedule', async () => {
  const daemon = await startDaemon({ env: { NESTBOX_BACKUP_SCHEDULE: '* * * * * *', NESTBOX_BACKUP_KEEP: '2' } });
  try {
    const line = await daemon.waitForLog((l) => l.msg === 'database backed up', 5000);
    // On PostgreSQL (TEST_ENGINE) the job runs pg_dump into the same folder.
    const suffix = testEngine() === 'postgres' ? '.dump' : '.sqlite3';
    assert.match(String(line.path), new RegExp(`backups/nestbox-\\d{8}T\\d{9}Z\\${suffix}$`));
    await daemon.waitForLog((l) => l.msg === 'database backed up' && Number(l.removed) > 0, 6000);
    const kept = await listBackups(join(daemon.dataDir, 'backups'), suffix);
    assert.ok(kept.length >= 1 && kept.length <= 2, String(kept));
  } finally {
    await daemon.stop();
  }
});

test.run();
