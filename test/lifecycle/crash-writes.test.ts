/**
 * The daemon killed (SIGKILL) in the middle of many concurrent writes: after a restart every write
 * that was answered 2xx is there, the database passes its engine's integrity check (SQLite's
 * integrity_check, PostgreSQL's amcheck), and every media row that names files has them whole.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { rawRows } from '../../daemon/store/dialect.js';
import { openDaemonDatabase } from '../helpers/daemon-database-open.js';
import { integrityProblems } from '../helpers/integrity.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { tempDir } from '../helpers/paths.js';
import { form, png } from '../helpers/media-files.js';

const POSTERS = 12;
const UPLOADERS = 2;
/**
 * Kill once this many posts were acknowledged (or after the time below: a PostgreSQL daemon on the
 * loaded test machine acknowledges a few a second), with many more in flight.
 */
const ACKED_BEFORE_KILL = 150;
const MAX_LOAD_MS = 30_000;

interface Acked {
  id: string;
  text: string;
}

async function postUntilKilled(
  box: SocialHarness,
  token: string,
  worker: number,
  acked: Acked[],
  stop: () => boolean,
): Promise<void> {
  for (let n = 0; !stop(); n++) {
    const text = `crash-${worker}-${n}`;
    try {
      const answer = await box.api(token, 'POST', '/api/v1/statuses', { status: text });
      if (answer.status >= 200 && answer.status < 300) acked.push({ id: answer.body.id, text });
    } catch {
      return; // the daemon is gone: this post was never acknowledged
    }
  }
}

async function uploadUntilKilled(
  box: SocialHarness,
  token: string,
  image: Buffer,
  acked: string[],
  stop: () => boolean,
): Promise<void> {
  while (!stop()) {
    try {
      const answer = await fetch(`${box.url}/api/v2/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form({ file: { data: image, type: 'image/png', name: 'p.png' } }),
      });
      const body = (await answer.json()) as { id: string };
      if (answer.ok) acked.push(body.id);
    } catch {
      return;
    }
  }
}

test('SIGKILL under write load: every acknowledged write survives the restart and the database checks whole', async () => {
  const data = tempDir();
  let box: SocialHarness | null = null;
  try {
    box = await startSocialDaemon({ NESTBOX_BACKUP_SCHEDULE: 'off' }, { dataDir: data.path });
    const port = box.daemon.port;
    const tokens = await Promise.all(
      Array.from({ length: 3 }, async (_, i) => (await box!.account(`writer${i}`)).token),
    );
    const image = await png(640, 480);
    const posts: Acked[] = [];
    const media: string[] = [];
    let killed = false;
    const stop = () => killed;
    const load = [
      ...Array.from({ length: POSTERS }, (_, i) => postUntilKilled(box!, tokens[i % tokens.length], i, posts, stop)),
      ...Array.from({ length: UPLOADERS }, (_, i) => uploadUntilKilled(box!, tokens[i], image, media, stop)),
    ];
    const started = Date.now();
    while (posts.length < ACKED_BEFORE_KILL && Date.now() - started < MAX_LOAD_MS)
      await new Promise((resolve) => setTimeout(resolve, 10));
    box.daemon.child.kill('SIGKILL');
    killed = true;
    await box.daemon.exited;
    await Promise.all(load);
    await box.admin.close();
    assert.ok(posts.length >= 50, `enough acknowledged posts before the kill (${posts.length})`);
    assert.ok(media.length >= 1, `uploads acknowledged before the kill (${media.length})`);

    const db = openDaemonDatabase(data.path);
    try {
      assert.equal(await integrityProblems(db), []);
      const done = await rawRows<{ id: string; file_name: string; preview_name: string | null }>(
        db,
        `SELECT CAST(id AS TEXT) AS id, file_name, preview_name FROM media_attachments WHERE file_name IS NOT NULL`,
      );
      const rows = new Set(done.map((row) => row.id));
      for (const id of media) assert.ok(rows.has(id), `acknowledged upload ${id} has its row`);
      for (const row of done) {
        for (const name of [row.file_name, row.preview_name].filter((n): n is string => n !== null)) {
          const file = join(data.path, 'media', row.id, name);
          assert.ok(existsSync(file), `${file} named by its row exists`);
          const meta = await sharp(file).metadata();
          assert.ok(meta.width && meta.height, `${file} is a whole image`);
        }
      }
    } finally {
      await db.destroy();
    }

    // The same address: the instance keeps the base URL it began with.
    box = await startSocialDaemon({ NESTBOX_BACKUP_SCHEDULE: 'off' }, { dataDir: data.path, port });
    for (const { id, text } of posts) {
      const answer = await box.api(tokens[0], 'GET', `/api/v1/statuses/${id}`);
      assert.is(answer.status, 200, `acknowledged post ${id}`);
      assert.match(answer.body.content, text);
    }
  } finally {
    await box?.stop().catch(() => undefined);
    data.remove();
  }
});

test.run();
