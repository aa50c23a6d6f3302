/**
 * Request bodies as Rails reads them: a multipart part with a filename is a file whatever its
 * headers, and bracketed names nest the same in multipart, url-encoded and JSON bodies.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { png } from '../helpers/media-files.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ada: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  ada = await h.account('ada');
});
test.after(async () => {
  await h?.stop();
});

type Part = [name: string, value: string] | [name: string, file: { filename: string; data: Buffer }];

/** A multipart body written by hand: fetch's FormData always gives a file part a Content-Type. */
function multipart(parts: Part[]): { body: Buffer; type: string } {
  const boundary = 'nestbox-boundary-7d1f';
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    const file = typeof value === 'string' ? null : value;
    const disposition = `form-data; name="${name}"${file ? `; filename="${file.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(file ? file.data : Buffer.from(value as string));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

async function send(method: string, path: string, body: Buffer | string, type: string) {
  const response = await fetch(h.url + path, {
    method,
    headers: { authorization: `Bearer ${ada.token}`, 'content-type': type },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

test('a file part without a Content-Type is an upload, its type read from the bytes', async () => {
  const { body, type } = multipart([
    ['description', 'a square'],
    ['file', { filename: 'square', data: await png(40, 40) }],
  ]);
  const media = await send('POST', '/api/v2/media', body, type);
  assert.ok([200, 202].includes(media.status), JSON.stringify(media.body));
  assert.is(media.body.type, 'image');
  assert.is(media.body.description, 'a square');
});

test('profile fields sent with an avatar in one multipart body are kept', async () => {
  const { body, type } = multipart([
    ['display_name', 'Ada'],
    ['fields_attributes[0][name]', 'Site'],
    ['fields_attributes[0][value]', 'ada.example'],
    ['fields_attributes[1][name]', 'Pronouns'],
    ['fields_attributes[1][value]', 'she/her'],
    ['source[privacy]', 'unlisted'],
    ['avatar', { filename: 'me.png', data: await png(64, 64) }],
  ]);
  const updated = await send('PATCH', '/api/v1/accounts/update_credentials', body, type);
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(
    updated.body.fields.map((f: { name: string; value: string }) => [f.name, f.value]),
    [
      ['Site', 'ada.example'],
      ['Pronouns', 'she/her'],
    ],
  );
  assert.is(updated.body.source.privacy, 'unlisted');
  assert.not.match(updated.body.avatar, /missing/);
});

test('a poll and media ids in bracketed names nest alike in multipart, url-encoded and JSON bodies', async () => {
  const ids = [];
  for (let i = 0; i < 2; i += 1) {
    const { body, type } = multipart([['file', { filename: `p${i}.png`, data: await png(20 + i, 20) }]]);
    ids.push((await send('POST', '/api/v2/media', body, type)).body.id as string);
  }
  // Uploads through v2 are processed after the answer: attach them once they are ready (200, not 206).
  for (const id of ids) {
    for (let tries = 0; ; tries += 1) {
      const media = await fetch(`${h.url}/api/v1/media/${id}`, { headers: { authorization: `Bearer ${ada.token}` } });
      if (media.status === 200) break;
      assert.ok(tries < 200, `media ${id} still processing`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const fields: Array<[string, string]> = [
    ['status', 'which one?'],
    ['poll[options][]', 'left'],
    ['poll[options][]', 'right'],
    ['poll[expires_in]', '3600'],
    ['poll[multiple]', 'true'],
  ];
  const asMultipart = multipart(fields);
  const viaMultipart = await send('POST', '/api/v1/statuses', asMultipart.body, asMultipart.type);
  const viaForm = await send(
    'POST',
    '/api/v1/statuses',
    new URLSearchParams(fields).toString(),
    'application/x-www-form-urlencoded',
  );
  const viaJson = await send(
    'POST',
    '/api/v1/statuses',
    JSON.stringify({
      status: 'which one?',
      'poll[options]': ['left', 'right'],
      'poll[expires_in]': 3600,
      'poll[multiple]': true,
    }),
    'application/json',
  );
  for (const posted of [viaMultipart, viaForm, viaJson]) {
    assert.is(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(
      posted.body.poll.options.map((o: { title: string }) => o.title),
      ['left', 'right'],
    );
    assert.is(posted.body.poll.multiple, true);
  }
  const media = multipart([
    ['status', 'two pictures'],
    ['media_ids[]', ids[0]],
    ['media_ids[]', ids[1]],
  ]);
  const withMedia = await send('POST', '/api/v1/statuses', media.body, media.type);
  assert.is(withMedia.status, 200, JSON.stringify(withMedia.body));
  assert.equal(
    withMedia.body.media_attachments.map((m: { id: string }) => m.id),
    ids,
  );
});

test('a dot in a name does not nest (Rails reads it as one name)', async () => {
  const posted = await send(
    'POST',
    '/api/v1/statuses',
    'status=plain&poll.expires_in=60',
    'application/x-www-form-urlencoded',
  );
  assert.is(posted.status, 200, JSON.stringify(posted.body));
  assert.is(posted.body.poll, null);
});

test.run();
