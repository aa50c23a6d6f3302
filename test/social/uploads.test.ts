/**
 * What refused multipart uploads leave behind: no descriptor and no temporary file, whatever the
 * route and whether a token came; a refused profile update keeps none of its images.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { form, png, startUnfinishedUpload } from '../helpers/media-files.js';

let h: SocialHarness;
let alice: TestAccount;
/** The daemon's TMPDIR: where formidable wrote file parts before they went to the media folder. */
const daemonTmp = mkdtempSync(join(tmpdir(), 'nestbox-uploads-tmp-'));

test.before(async () => {
  h = await startSocialDaemon({ TMPDIR: daemonTmp });
  alice = await h.account('alice');
});
test.after(async () => {
  await h?.stop();
  rmSync(daemonTmp, { recursive: true, force: true });
});

/** Unix-domain sockets of the machine (PostgreSQL's connections, which its pools open as they like). */
const unixSockets = (): Set<string> =>
  new Set(
    readFileSync('/proc/net/unix', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[6])
      .filter(Boolean),
  );
/** The daemon's open descriptors: files and network sockets, not its database connections. */
const descriptors = () => {
  const folder = `/proc/${h.daemon.child.pid}/fd`;
  const unix = unixSockets();
  return readdirSync(folder).filter((fd) => {
    const target = /^socket:\[(\d+)\]$/.exec(readlinkOrEmpty(join(folder, fd)));
    return !(target && unix.has(target[1]));
  }).length;
};
function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return ''; // closed while the folder was read
  }
}
const files = (dir: string): number =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
const tempFiles = () => files(daemonTmp) + files(join(h.daemon.dataDir, 'media', 'incoming'));

/** The counts once the daemon has finished with the requests (cleanup is asynchronous). */
async function settled(read: () => number): Promise<number> {
  let last = read();
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

function withFilePart(): FormData {
  return form({
    status: 'hello',
    client_name: 'x',
    file: { data: Buffer.alloc(64 * 1024, 1), type: 'application/octet-stream', name: 'refused.bin' },
  });
}

test('a few hundred multipart posts with a refused file part leave no descriptor and no temporary file', async () => {
  const fdsBefore = await settled(descriptors);
  const filesBefore = tempFiles();
  const statuses: Record<number, number> = {};
  for (let i = 0; i < 150; i++) {
    // A route that needs a token (refused before the body is read) and an open one (file part refused).
    for (const path of ['/api/v1/statuses', '/api/v1/apps']) {
      const res = await fetch(h.url + path, { method: 'POST', body: withFilePart() });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }
  const fdsAfter = await settled(descriptors);
  assert.ok(fdsAfter - fdsBefore <= 5, `descriptors: ${fdsBefore} before, ${fdsAfter} after 300 refused uploads`);
  assert.is(await settled(tempFiles), filesBefore, 'temporary files');
  assert.equal(statuses, { 401: 150, 413: 150 }, 'the token is checked before the body is read');
  assert.is(
    (await h.api(alice.token, 'GET', '/api/v1/accounts/verify_credentials')).status,
    200,
    'the daemon still answers',
  );
});

test('a file part past the limit of a route that takes files is 413 and leaves nothing', async () => {
  const before = tempFiles();
  const big = form({ avatar: { data: Buffer.alloc(17 * 1024 * 1024, 1), type: 'image/png', name: 'big.png' } });
  const res = await fetch(`${h.url}/api/v1/accounts/update_credentials`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${alice.token}` },
    body: big,
  });
  assert.is(res.status, 413);
  assert.equal(await res.json(), { error: 'Payload too large' });
  assert.is(await settled(tempFiles), before);
});

test('an upload cut off by the client leaves no descriptor and no temporary file', async () => {
  const fdsBefore = await settled(descriptors);
  const filesBefore = tempFiles();
  for (let i = 0; i < 20; i++) {
    const socket = await startUnfinishedUpload(h.daemon.port, alice.token);
    // The file is being written when the client goes away.
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
  }
  const fdsAfter = await settled(descriptors);
  assert.ok(fdsAfter - fdsBefore <= 5, `descriptors: ${fdsBefore} before, ${fdsAfter} after 20 cut-off uploads`);
  assert.is(await settled(tempFiles), filesBefore, 'temporary files');
});

test('an unauthorised upload to update_credentials is 401 and writes nothing', async () => {
  const before = tempFiles();
  const res = await fetch(`${h.url}/api/v1/accounts/update_credentials`, {
    method: 'PATCH',
    body: form({ avatar: { data: await png(), type: 'image/png', name: 'a.png' } }),
  });
  assert.is(res.status, 401);
  assert.is(await settled(tempFiles), before);
});

test('a refused profile update keeps none of the images it carried', async () => {
  const folder = join(h.daemon.dataDir, 'media', 'accounts');
  const images = () => (existsSync(folder) ? files(folder) : 0);
  const before = images();
  const body = form({
    display_name: 'x'.repeat(100),
    avatar: { data: await png(), type: 'image/png', name: 'a.png' },
    header: { data: await png(), type: 'image/png', name: 'h.png' },
  });
  const res = await fetch(`${h.url}/api/v1/accounts/update_credentials`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${alice.token}` },
    body,
  });
  assert.is(res.status, 422, 'a display name over 30 characters');
  assert.is(images(), before, 'image files under media/accounts');
  const account = (await h.api(alice.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
  assert.match(account.avatar, /missing\.png$/);
});

test.run();
