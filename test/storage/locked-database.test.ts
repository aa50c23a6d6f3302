/**
 * Another process holding the SQLite file's write lock past the daemon's busy timeout (a long
 * transaction of another tool): a write answers 503 with Retry-After and the error body, saves
 * nothing, and the daemon logs one line; once the lock is released the same write succeeds. Reads
 * go on meanwhile (WAL). A real file, locked from a second connection.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../daemon/store/db.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
let token: string;
let other: Db;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_BACKUP_SCHEDULE: 'off' });
  await h.account('locked', { owner: true });
  token = await h.token('locked', 'read write');
  other = openDatabase({ filename: join(h.daemon.dataDir, 'nestbox.sqlite3') });
});

test.after(async () => {
  await other?.destroy();
  await h?.stop();
});

test('a write meets the lock: 503 with Retry-After, nothing saved; after its release the write succeeds', async () => {
  const posted = () => h.api(token, 'POST', '/api/v1/statuses', { status: 'through the lock' });
  const own = async () =>
    (await h.api<Array<{ content: string }>>(token, 'GET', '/api/v1/timelines/home')).body.map((s) => s.content);
  await other.transaction(async (trx) => {
    await trx.raw(`INSERT INTO settings (key, value, updated_at) VALUES ('locked-test', '1', '2026-12-07')`);
    const refused = await posted();
    assert.is(refused.status, 503);
    assert.is(refused.headers.get('retry-after'), '5');
    assert.equal(refused.body, { error: 'The database is busy; try again shortly' });
    assert.equal(await own(), [], 'reads go on, and nothing was saved');
  });
  assert.ok(
    h.daemon.logs.some((line) => line.msg === 'request refused: the database is locked by another process'),
    'one log line',
  );
  const accepted = await posted();
  assert.is(accepted.status, 200);
  assert.equal(await own(), ['<p>through the lock</p>']);
});

test.run();
