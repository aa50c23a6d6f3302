/** Media uploads against the real daemon, on real image files made with sharp. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { corruptPng, form, jpegWithGps, paddedJpeg, png, wav } from '../helpers/media-files.js';
import { rawRows } from '../../daemon/store/dialect.js';
import { MEDIA_UPLOADS } from '../../daemon/social/media/service.js';
import { oneWindowFor } from '../helpers/rate-window.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice');
  bob = await h.account('bob');
});
test.after(async () => {
  await h?.stop();
});

async function upload(token: string, path: string, body: FormData | string, json = false) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (json) headers['content-type'] = 'application/json';
  const res = await fetch(h.url + path, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitProcessed(token: string, id: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const res = await h.api(token, 'GET', `/api/v1/media/${id}`);
    if (res.status === 200) return res.body;
    assert.is(res.status, 206);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('media not processed in time');
}

test('v1 upload of a JPEG answers 200 with meta, preview, blurhash, and the stored file has no GPS metadata', async () => {
  const original = await jpegWithGps();
  assert.ok((await sharp(original).metadata()).exif, 'the test file carries EXIF');
  const res = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: original, type: 'image/jpeg', name: 'holiday.jpg' }, description: 'A red square' }),
  );
  assert.is(res.status, 200);
  assert.is(res.body.type, 'image');
  assert.is(res.body.description, 'A red square');
  assert.equal(res.body.meta.original, { width: 800, height: 600, size: '800x600', aspect: 800 / 600 });
  assert.is(res.body.meta.small.width, 640);
  assert.match(res.body.blurhash, /^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{20,}$/);
  assert.ok(BigInt(res.body.id) > 2n ** 53n, 'snowflake id above 2^53');
  const file = await fetch(res.body.url);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'image/jpeg');
  assert.match(file.headers.get('cache-control')!, /max-age=31536000/);
  const stored = Buffer.from(await file.arrayBuffer());
  const meta = await sharp(stored).metadata();
  assert.is(meta.exif, undefined, 'EXIF (with GPS) stripped');
  assert.is(meta.width, 800);
  const preview = await fetch(res.body.preview_url);
  assert.is(preview.status, 200);
  assert.is((await sharp(Buffer.from(await preview.arrayBuffer())).metadata()).width, 640);
});

test('v2 upload answers 202 with url and preview_url null while processing, 200 once processed; GET gives 206 then 200', async () => {
  const res = await upload(
    alice.token,
    '/api/v2/media',
    form({ file: { data: await png(), type: 'image/png', name: 'a.png' } }),
  );
  // Mastodon's contract (Api::V2::MediaController): 202 while the attachment is not processed, 200
  // when it already is. Which one a small image gets depends on how soon processing ends, on
  // either engine; the status must agree with the body it comes with.
  if (res.status === 202) {
    assert.is(res.body.preview_url, null);
    assert.is(res.body.url, null);
  } else {
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.url, /\/original\.png$/);
    assert.ok(res.body.preview_url);
  }
  const done = await waitProcessed(alice.token, res.body.id);
  assert.match(done.url, /\/original\.png$/);
  assert.equal(done.meta.original.size, '300x200');
  assert.ok(done.preview_url);
});

test('base64 file in a JSON body is accepted', async () => {
  const data = (await png(40, 30)).toString('base64');
  const res = await upload(
    alice.token,
    '/api/v1/media',
    JSON.stringify({ file: `data:image/png;base64,${data}` }),
    true,
  );
  assert.is(res.status, 200);
  assert.equal(res.body.meta.original.size, '40x30');
});

test('audio is detected from its bytes; its thumbnail becomes the preview, and can be replaced while unattached', async () => {
  const res = await upload(
    alice.token,
    '/api/v2/media',
    form({
      file: { data: wav(), type: 'application/octet-stream', name: 'tone.bin' },
      thumbnail: { data: await png(120, 80), type: 'image/png', name: 'cover.png' },
    }),
  );
  assert.ok(res.status === 200 || res.status === 202, String(res.status));
  const done = await waitProcessed(alice.token, res.body.id);
  assert.is(done.type, 'audio');
  assert.match(done.url, /\/original\.wav$/);
  assert.match(done.preview_url, /\/thumbnail\.jpg$/);
  assert.equal(done.meta.small.size, '120x80');
  assert.ok(done.blurhash);
  const file = await fetch(done.url);
  assert.is(file.headers.get('content-type'), 'audio/wav');
  const replaced = await fetch(`${h.url}/api/v1/media/${done.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({ thumbnail: { data: await png(60, 60), type: 'image/png', name: 't.png' } }),
  });
  assert.is(replaced.status, 200);
  assert.equal(((await replaced.json()) as any).meta.small.size, '60x60');
  const notImage = await fetch(`${h.url}/api/v1/media/${done.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({ thumbnail: { data: wav(0.1), type: 'image/png', name: 't.png' } }),
  });
  assert.is(notImage.status, 422);
});

test('a file that is not what it claims is 422 and nothing is stored', async () => {
  const lying = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: Buffer.from('this is plain text, not a picture'), type: 'image/png', name: 'cat.png' } }),
  );
  assert.is(lying.status, 422);
  assert.match(lying.body.error, /Validation failed/);
  const mismatch = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'video/mp4', name: 'clip.mp4' } }),
  );
  assert.is(mismatch.status, 422);
  const truncated = (await jpegWithGps()).subarray(0, 200);
  const broken = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: truncated, type: 'image/jpeg', name: 'x.jpg' } }),
  );
  assert.is(broken.status, 422);
  const missing = await upload(alice.token, '/api/v1/media', form({ description: 'no file' }));
  assert.is(missing.status, 422);
});

test('an image above 16 MB is 413 and nothing is stored', async () => {
  const big = await paddedJpeg(17 * 1024 * 1024);
  assert.ok(big.length > 16 * 1024 * 1024, `test file is ${big.length} bytes`);
  const res = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: big, type: 'image/jpeg', name: 'big.jpg' } }),
  );
  assert.is(res.status, 413);
  const left = await rawRows<any>(
    (h.admin as any).db,
    `SELECT count(*) AS n FROM media_attachments WHERE file_size > ?`,
    [16 * 1024 * 1024],
  );
  assert.is(left[0].n, 0);
});

test("PUT updates description and focus while unattached; attached or other people's media is 404", async () => {
  const res = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  );
  const id = res.body.id;
  const put = await fetch(`${h.url}/api/v1/media/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({ description: 'alt text', focus: '0.5,-0.25' }),
  });
  const updated = (await put.json()) as any;
  assert.is(put.status, 200);
  assert.is(updated.description, 'alt text');
  assert.equal(updated.meta.focus, { x: 0.5, y: -0.25 });
  const badFocus = await h.api(alice.token, 'PUT', `/api/v1/media/${id}`, { focus: '3,3' });
  assert.is(badFocus.status, 422);
  assert.is((await h.api(bob.token, 'PUT', `/api/v1/media/${id}`, { description: 'mine' })).status, 404);
  assert.is((await h.api(bob.token, 'GET', `/api/v1/media/${id}`)).status, 404);

  const status = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: '', media_ids: [id] });
  assert.is(status.status, 200, JSON.stringify(status.body));
  assert.is(status.body.media_attachments.length, 1);
  assert.is(status.body.media_attachments[0].id, id);
  assert.is(status.body.media_attachments[0].description, 'alt text');
  assert.is((await h.api(alice.token, 'PUT', `/api/v1/media/${id}`, { description: 'too late' })).status, 404);
  const again = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'reuse', media_ids: [id] });
  assert.is(again.status, 422, 'already attached');
});

test("statuses refuse someone else's media, unknown ids and more than four files", async () => {
  const res = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  );
  assert.is(
    (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'x', media_ids: [res.body.id] })).status,
    422,
  );
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'x', media_ids: ['123456789'] })).status,
    422,
  );
  const five = [];
  for (let i = 0; i < 5; i++)
    five.push(
      (
        await upload(
          alice.token,
          '/api/v1/media',
          form({ file: { data: await png(20, 20), type: 'image/png', name: 'p.png' } }),
        )
      ).body.id,
    );
  assert.is((await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'x', media_ids: five })).status, 422);
});

test('uploads are limited to 30 per 30 minutes per account (429 with rate-limit headers)', async () => {
  const carol = await h.account('carol');
  await oneWindowFor(MEDIA_UPLOADS.periodMs, 60_000);
  const file = await png(8, 8);
  for (let i = 0; i < 30; i++) {
    const res = await upload(
      carol.token,
      '/api/v2/media',
      form({ file: { data: file, type: 'image/png', name: 'p.png' } }),
    );
    assert.ok(res.status === 200 || res.status === 202, `upload ${i}: ${res.status}`);
  }
  const refused = await fetch(`${h.url}/api/v2/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${carol.token}` },
    body: form({ file: { data: file, type: 'image/png', name: 'p.png' } }),
  });
  assert.is(refused.status, 429);
  assert.is(refused.headers.get('x-ratelimit-remaining'), '0');
});

test('unattached media older than a day is removed with its files; attached media stays', async () => {
  const res = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  );
  const db = (h.admin as any).db;
  await rawRows<any>(db, `UPDATE media_attachments SET created_at = '2020-01-01T00:00:00.000Z' WHERE id = ?`, [
    res.body.id,
  ]);
  const attached = (
    await rawRows<any>(db, `SELECT CAST(id AS TEXT) AS id FROM media_attachments WHERE status_id IS NOT NULL LIMIT 1`)
  )[0].id;
  await rawRows<any>(db, `UPDATE media_attachments SET created_at = '2020-01-01T00:00:00.000Z' WHERE id = ?`, [
    attached,
  ]);
  const removed = await h.admin.social.services.media.removeStale();
  assert.ok(removed >= 1);
  assert.is((await fetch(res.body.url)).status, 404);
  assert.is(
    (await rawRows<any>(db, `SELECT count(*) AS n FROM media_attachments WHERE id = ?`, [res.body.id]))[0].n,
    0,
  );
  assert.is((await rawRows<any>(db, `SELECT count(*) AS n FROM media_attachments WHERE id = ?`, [attached]))[0].n, 1);
});

test("DELETE /api/v1/media/:id: one's unattached upload goes with its files; attached is 422, another's 404", async () => {
  const res = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  );
  assert.is((await h.api(bob.token, 'DELETE', `/api/v1/media/${res.body.id}`)).status, 404);
  assert.equal((await h.api(alice.token, 'DELETE', `/api/v1/media/${res.body.id}`)).body, {});
  assert.is((await fetch(res.body.url)).status, 404);
  assert.is((await h.api(alice.token, 'GET', `/api/v1/media/${res.body.id}`)).status, 404);
  const used = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  );
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'with it', media_ids: [used.body.id] })).status,
    200,
  );
  const refused = await h.api(alice.token, 'DELETE', `/api/v1/media/${used.body.id}`);
  assert.is(refused.status, 422);
  assert.is(refused.body.error, 'Media attachment is currently used by a status');
  assert.is((await fetch(used.body.url)).status, 200);
});

test('media routes need write:media: 401 without a token, 403 with read only', async () => {
  const body = () => form({ file: { data: Buffer.from('x'), type: 'image/png', name: 'x.png' } });
  assert.is((await fetch(`${h.url}/api/v1/media`, { method: 'POST', body: body() })).status, 401);
  const readOnly = await h.token('alice', 'read');
  assert.is((await upload(readOnly, '/api/v2/media', body())).status, 403);
});

const mediaDir = () => join(h.daemon.dataDir, 'media');
/** Attachment folders (named by id) and files waiting in the incoming folder. */
const onDisk = () => ({
  folders: readdirSync(mediaDir())
    .filter((name) => /^\d+$/.test(name))
    .sort(),
  incoming: readdirSync(join(mediaDir(), 'incoming')).length,
});
const db = () => (h.admin as any).db;
const uploadsCounted = async (accountId: string) =>
  (
    await rawRows<any>(
      db(),
      `SELECT CAST(coalesce(sum(count), 0) AS INTEGER) AS n FROM rate_limits WHERE account_id = ? AND family = 'media'`,
      [accountId],
    )
  )[0].n;

test('an upload refused for a bad parameter (422) leaves nothing in the media folder and counts against the limit', async () => {
  const dave = await h.account('dave');
  await oneWindowFor(MEDIA_UPLOADS.periodMs, 30_000);
  const before = onDisk();
  const badThumbnail = await upload(
    dave.token,
    '/api/v2/media',
    form({
      file: { data: wav(), type: 'audio/wav', name: 'a.wav' },
      thumbnail: { data: Buffer.from('not an image at all'), type: 'image/png', name: 't.png' },
    }),
  );
  assert.is(badThumbnail.status, 422);
  const badFocus = await upload(
    dave.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' }, focus: '7,7' }),
  );
  assert.is(badFocus.status, 422);
  const badBase64 = await upload(
    dave.token,
    '/api/v1/media',
    JSON.stringify({ file: await png(8, 8).then((b) => b.toString('base64')), thumbnail: '%%%' }),
    true,
  );
  assert.is(badBase64.status, 422);
  assert.equal(onDisk(), before, 'no attachment folder and no incoming file');
  assert.is(
    (await rawRows<any>(db(), `SELECT count(*) AS n FROM media_attachments WHERE account_id = ?`, [dave.id]))[0].n,
    0,
  );
  assert.is(await uploadsCounted(dave.id), 3, 'each refused upload counted');
  const next = await fetch(`${h.url}/api/v2/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${dave.token}` },
    body: form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  });
  assert.is(next.headers.get('x-ratelimit-remaining'), '26');
});

test('a processing failure removes the partial files and leaves no row in "processing"', async () => {
  const erin = await h.account('erin');
  const before = onDisk();
  const v1 = await upload(
    erin.token,
    '/api/v1/media',
    form({ file: { data: await corruptPng(), type: 'image/png', name: 'broken.png' } }),
  );
  assert.is(v1.status, 422, 'sharp reads the header but not the image');
  assert.is(
    (await rawRows<any>(db(), `SELECT count(*) AS n FROM media_attachments WHERE account_id = ?`, [erin.id]))[0].n,
    0,
    'a v1 client never learnt the id: no row',
  );
  assert.equal(onDisk(), before);

  const v2 = await upload(
    erin.token,
    '/api/v2/media',
    form({ file: { data: await corruptPng(), type: 'image/png', name: 'broken.png' } }),
  );
  // Processing runs beside the answer: when it has already failed, v2 answers 422 as Mastodon does for
  // an image it processes at once, and nothing of the attempt stays; otherwise 202, and the app
  // polling the id learns it failed.
  if (v2.status === 422) {
    const rows = await rawRows<any>(db(), `SELECT id FROM media_attachments WHERE account_id = ?`, [erin.id]);
    assert.equal(rows, [], 'an id never given out: no row');
  } else {
    assert.is(v2.status, 202, JSON.stringify(v2.body));
    let polled = 206;
    for (let i = 0; i < 100 && polled === 206; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      polled = (await h.api(erin.token, 'GET', `/api/v1/media/${v2.body.id}`)).status;
    }
    assert.is(polled, 422, 'the app polling it learns it failed');
    const [row] = await rawRows<any>(db(), `SELECT state FROM media_attachments WHERE id = ?`, [v2.body.id]);
    assert.is(row.state, 'failed');
    assert.not.ok(existsSync(join(mediaDir(), v2.body.id)), 'no partial original or preview');
  }
  assert.equal(onDisk(), before);
});

test('a replacement thumbnail that cannot be decoded is 422 and the current one stays whole', async () => {
  const res = await upload(
    alice.token,
    '/api/v2/media',
    form({
      file: { data: wav(), type: 'audio/wav', name: 'a.wav' },
      thumbnail: { data: await png(120, 80), type: 'image/png', name: 'c.png' },
    }),
  );
  const done = await waitProcessed(alice.token, res.body.id);
  const files = () => readdirSync(join(mediaDir(), done.id)).sort();
  const before = files();
  const preview = Buffer.from(await (await fetch(done.preview_url)).arrayBuffer());
  const replaced = await fetch(`${h.url}/api/v1/media/${done.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({ thumbnail: { data: await corruptPng(), type: 'image/png', name: 't.png' } }),
  });
  assert.is(replaced.status, 422);
  assert.equal(files(), before, 'no partial preview, no uploaded thumbnail left');
  assert.ok(
    Buffer.from(await (await fetch(done.preview_url)).arrayBuffer()).equals(preview),
    'the preview served is the one before',
  );
});

test('the media sweep removes idle temp files, folders without a row, rows stuck in processing and unused profile images', async () => {
  const long = new Date(Date.now() - 2 * 3600_000);
  const orphan = join(mediaDir(), '999999999999');
  mkdirSync(orphan);
  writeFileSync(join(orphan, 'original.png'), await png());
  utimesSync(orphan, long, long);
  const temp = join(mediaDir(), 'incoming', 'abandoned-upload');
  writeFileSync(temp, 'half an upload');
  utimesSync(temp, long, long);
  const fresh = join(mediaDir(), 'incoming', 'arriving-now');
  writeFileSync(fresh, 'an upload under way');
  const unusedAvatar = join(mediaDir(), 'accounts', 'avatars', alice.id, 'original', 'aaaaaaaaaaaaaaaaaaaaaaaa.png');
  mkdirSync(dirname(unusedAvatar), { recursive: true });
  writeFileSync(unusedAvatar, await png());
  utimesSync(unusedAvatar, long, long);
  const profile = await fetch(`${h.url}/api/v1/accounts/update_credentials`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({ avatar: { data: await png(), type: 'image/png', name: 'me.png' } }),
  });
  const usedAvatar = join(mediaDir(), new URL(((await profile.json()) as any).avatar).pathname.replace('/system/', ''));
  utimesSync(usedAvatar, long, long);
  const stuck = await upload(
    alice.token,
    '/api/v1/media',
    form({ file: { data: await png(), type: 'image/png', name: 'p.png' } }),
  );
  await rawRows<any>(db(), `UPDATE media_attachments SET state = 'processing', updated_at = ? WHERE id = ?`, [
    long.toISOString(),
    stuck.body.id,
  ]);

  const result = await h.admin.social.services.mediaSweep.run();
  assert.equal(result, { tempFiles: 1, orphanFolders: 1, stuckRows: 1, profileImages: 1 });
  assert.not.ok(existsSync(unusedAvatar), 'an avatar file no account names');
  assert.ok(existsSync(usedAvatar), 'the avatar in use stays');
  assert.not.ok(existsSync(orphan));
  assert.not.ok(existsSync(temp));
  assert.ok(existsSync(fresh), 'a file still being written stays');
  assert.not.ok(existsSync(join(mediaDir(), stuck.body.id)));
  assert.is(
    (await rawRows<any>(db(), `SELECT state FROM media_attachments WHERE id = ?`, [stuck.body.id]))[0].state,
    'failed',
  );
  assert.is((await h.api(alice.token, 'GET', `/api/v1/media/${stuck.body.id}`)).status, 422);
});

test.run();
