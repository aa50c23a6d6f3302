import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { backupDatabase, listBackups } from '../../daemon/store/backup.js';
import { execFileSync } from 'node:child_process';
import { startDaemon } from '../helpers/daemon.js';
import { testEngine } from '../helpers/daemon-database.js';
import { openMigrated } from '../helpers/engines.js';
import { tempDir } from '../helpers/paths.js';
import { withTempDatabase } from '../helpers/temp-database.js';

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
