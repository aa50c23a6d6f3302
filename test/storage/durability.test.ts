import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon } from '../helpers/social.js';
import { traceSyncs } from '../helpers/sync-trace.js';

const isWal = (path: string) => path.endsWith('nestbox.sqlite3-wal');

test('each acknowledged post is synced to the WAL before the answer (synchronous = FULL)', async () => {
  const box = await startSocialDaemon({ NESTBOX_BACKUP_SCHEDULE: 'off' });
  try {
    const alice = await box.account('alice');
    const trace = await traceSyncs(box.daemon.child.pid!);
    const posts = 15;
    for (let i = 0; i < posts; i++) assert.is((await box.api(alice.token, 'POST', '/api/v1/statuses', { status: `post ${i}` })).status, 200);
    const calls = await trace.stop();
    const walSyncs = calls.filter((call) => isWal(call.path)).length;
    assert.ok(walSyncs >= posts, `${walSyncs} WAL syncs for ${posts} acknowledged posts`);
  } finally {
    await box.stop();
  }
});

test.run();
