import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { traceSyncs, type SyncCall } from '../helpers/sync-trace.js';
import { form, png } from '../helpers/media-files.js';

const lastIndex = (calls: SyncCall[], match: (path: string) => boolean) =>
  calls.findLastIndex((call) => match(call.path));
const firstIndexAfter = (calls: SyncCall[], after: number, match: (path: string) => boolean) =>
  calls.findIndex((call, i) => i > after && match(call.path));
const isWal = (path: string) => path.endsWith('nestbox.sqlite3-wal');

/** One daemon without backups for the posts and the media: each test traces only its own writes. */
let box: SocialHarness;
let alice: TestAccount;

test.before(async () => {
  box = await startSocialDaemon({ NESTBOX_BACKUP_SCHEDULE: 'off' });
  alice = await box.account('alice');
});
test.after(async () => {
  await box?.stop();
});

test('each acknowledged post is synced to the WAL before the answer (synchronous = FULL)', async () => {
  const trace = await traceSyncs(box.daemon.child.pid!);
  const posts = 15;
  for (let i = 0; i < posts; i++)
    assert.is((await box.api(alice.token, 'POST', '/api/v1/statuses', { status: `post ${i}` })).status, 200);
  const calls = await trace.stop();
  const walSyncs = calls.filter((call) => isWal(call.path)).length;
  assert.ok(walSyncs >= posts, `${walSyncs} WAL syncs for ${posts} acknowledged posts`);
});

test('media files and their folder are synced before the row that names them is written', async () => {
  const trace = await traceSyncs(box.daemon.child.pid!);
  const upload = await fetch(`${box.url}/api/v2/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({ file: { data: await png(), type: 'image/png', name: 'a.png' } }),
  });
  const { id } = (await upload.json()) as { id: string };
  for (let i = 0; i < 100; i++) {
    const media = await box.api(alice.token, 'GET', `/api/v1/media/${id}`);
    if (media.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const calls = await trace.stop();
  const folder = `/media/${id}`;
  const uploaded = lastIndex(calls, (path) => path.includes(`${folder}/upload.png`));
  const original = lastIndex(calls, (path) => path.endsWith(`${folder}/original.png`));
  const preview = lastIndex(calls, (path) => path.endsWith(`${folder}/small.jpg`));
  const dir = lastIndex(calls, (path) => path.endsWith(folder));
  assert.ok(uploaded >= 0, 'the upload was synced');
  assert.ok(original >= 0, 'the original was synced');
  assert.ok(preview >= 0, 'the preview was synced');
  assert.ok(dir > Math.max(original, preview), 'the folder was synced after its files');
  // The row naming the processed files commits (a WAL sync) after all of that.
  assert.ok(firstIndexAfter(calls, dir, isWal) > dir, 'the database row came after the files');
});

test('a backup is synced under its temporary name, renamed, and its folder synced', async () => {
  const backingUp = await startSocialDaemon({ NESTBOX_BACKUP_SCHEDULE: '* * * * * *' });
  try {
    const trace = await traceSyncs(backingUp.daemon.child.pid!);
    // The second backup after strace attached certainly started after it (one a second).
    const seen = backingUp.daemon.logs.length;
    const backups = () => backingUp.daemon.logs.slice(seen).filter((line) => line.msg === 'database backed up');
    await backingUp.daemon.waitForLog(() => backups().length >= 2, 15_000);
    const done = backups()[1];
    const calls = await trace.stop();
    const name = String(done.path);
    const partial = calls.findIndex((call) => call.path === `${name}.partial`);
    const folder = calls.findIndex((call, i) => i > partial && call.path === name.slice(0, name.lastIndexOf('/')));
    assert.ok(partial >= 0, 'the copy was synced before its rename');
    assert.ok(folder > partial, 'the backups folder was synced after the rename');
  } finally {
    await backingUp.stop();
  }
});

test.run();
