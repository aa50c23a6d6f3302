/**
 * A daemon killed in the middle of an upload: the half-written temp file is all it leaves, and
 * the media sweep of the restarted daemon removes it once it has been idle past the grace period.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { startSocialDaemon } from '../helpers/social.js';
import { tempDir } from '../helpers/paths.js';
import { startUnfinishedUpload } from '../helpers/media-files.js';

test('an upload cut off by a crash leaves only a temp file, which the sweep removes', async () => {
  const data = tempDir();
  const incoming = join(data.path, 'media', 'incoming');
  try {
    const first = await startSocialDaemon({}, { dataDir: data.path });
    const alice = await first.account('alice');
    const socket = await startUnfinishedUpload(first.daemon.port, alice.token, 256 * 1024);
    for (let i = 0; i < 50 && readdirSync(incoming).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(readdirSync(incoming).length, 1, 'the upload is being written');
    await first.admin.close();
    await first.daemon.stop('SIGKILL');
    socket.destroy();
    const left = readdirSync(incoming);
    assert.is(left.length, 1, 'a crash leaves the temp file behind');

    // The same address: the instance keeps the base URL it began with.
    const second = await startSocialDaemon({}, { dataDir: data.path, port: first.daemon.port });
    try {
      const sweep = second.admin.social.services.mediaSweep;
      assert.equal(
        await sweep.run(),
        { tempFiles: 0, orphanFolders: 0, stuckRows: 0, profileImages: 0 },
        'too fresh to be taken for abandoned',
      );
      const long = new Date(Date.now() - 2 * 3600_000);
      utimesSync(join(incoming, left[0]), long, long);
      assert.equal(await sweep.run(), { tempFiles: 1, orphanFolders: 0, stuckRows: 0, profileImages: 0 });
      assert.equal(readdirSync(incoming), []);
    } finally {
      await second.stop();
    }
  } finally {
    data.remove();
  }
});

test.run();
