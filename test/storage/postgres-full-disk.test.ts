/**
 * PostgreSQL's counterpart of full-disk: the statuses table of a daemon's database moved to a
 * tablespace on a small tmpfs, which is then filled. A post the server cannot store (SQLSTATE
 * 53100, disk_full) answers 507 with the same error as SQLite's full disk, reads go on, and once
 * space is back posts are taken again by the same process.
 */
import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { databaseUrl } from '../helpers/postgres-cluster.js';
import { createPostgresDatabase } from '../helpers/postgres-database.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { fill, mountTmpfs, removeFile } from '../helpers/tmpfs.js';

/** Runs `sql` as the cluster's superuser in `database` of the cluster that holds `url`. */
async function asAdmin(url: string, database: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(url, database) });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The server runs as `postgres` under root: the tablespace's folder must be its own. */
function giveToServer(path: string): void {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(path, id('-u'), id('-g'));
}

test('a full disk under the statuses: posts answer 507, reads go on, and posts are taken again once there is room', async () => {
  const disk = mountTmpfs(4);
  giveToServer(disk.path);
  const database = await createPostgresDatabase();
  const name = database.url.slice(database.url.lastIndexOf('/') + 1).split('?')[0];
  const tablespace = `${name}_small`;
  let box: SocialHarness | null = null;
  try {
    await asAdmin(database.url, 'postgres', `CREATE TABLESPACE ${tablespace} LOCATION '${disk.path}'`);
    await asAdmin(database.url, name, `ALTER TABLE statuses SET TABLESPACE ${tablespace}`);
    box = await startSocialDaemon({ NESTBOX_DATABASE_URL: database.url, NESTBOX_BACKUP_SCHEDULE: 'off' });
    const alice = await box.account('alice');
    const post = (text: string) => box!.api(alice.token, 'POST', '/api/v1/statuses', { status: text });
    const first = await post('written while there was room');
    assert.is(first.status, 200);

    const filler = fill(disk.path, 'filler');
    // The table's last page has room left: keep posting until it needs another one.
    const words = 'no room for this post '.repeat(20);
    let refused: Awaited<ReturnType<typeof post>> | null = null;
    for (let i = 0; i < 500 && !refused; i++) {
      const answer = await post(`${i} ${words}`);
      if (answer.status !== 200) refused = answer;
    }
    assert.ok(refused, 'a post was refused once the disk was full');
    assert.is(refused.status, 507, JSON.stringify(refused.body));
    assert.match(refused.body.error, /storage is full/);

    const read = await box.api(alice.token, 'GET', `/api/v1/statuses/${first.body.id}`);
    assert.is(read.status, 200);
    assert.is((await box.api(alice.token, 'GET', '/api/v1/timelines/home')).status, 200);

    removeFile(filler);
    const after = await post('written once there was room again');
    assert.is(after.status, 200, JSON.stringify(after.body));
    assert.is((await box.api(alice.token, 'GET', `/api/v1/statuses/${after.body.id}`)).status, 200);
  } finally {
    await box?.stop().catch(() => undefined);
    await database.drop();
    await asAdmin(database.url, 'postgres', `DROP TABLESPACE IF EXISTS ${tablespace}`).catch(() => undefined);
    disk.unmount();
  }
});

test.run();
