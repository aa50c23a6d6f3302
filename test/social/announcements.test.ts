/** Announcements: published with `npm run admin -- create-announcement`, listed, dismissed, reacted to. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runAdmin } from '../helpers/admin-cli.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;

const admin = (args: string[]) => runAdmin({ dataDir: h.daemon.dataDir, baseUrl: h.url }, args);

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice');
  bob = await h.account('bob');
  const db = (h.admin as any).db;
  await db.raw(
    `INSERT INTO custom_emojis (shortcode, image_url, static_url, created_at) VALUES ('blobcat', 'http://127.0.0.1/e.png', 'http://127.0.0.1/e.png', '2026-01-01T00:00:00.000Z')`,
  );
});
test.after(async () => {
  await h?.stop();
});

test('create-announcement publishes; all_day only with a time range; bad input is refused (exit 1, usage 2)', async () => {
  const plain = await admin(['create-announcement', '--text', 'Maintenance tonight']);
  assert.is(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /published announcement \d+/);
  await h.admin.createAnnouncement({
    text: 'Picnic',
    startsAt: '2030-06-01T10:00:00Z',
    endsAt: '2030-06-01T18:00:00Z',
    allDay: true,
  });
  const allDayAlone = await admin(['create-announcement', '--text', 'Oops', '--all-day']);
  assert.is(allDayAlone.status, 1);
  assert.match(allDayAlone.stderr, /All day/);
  assert.is((await admin(['create-announcement'])).status, 2);
  await h.admin.createAnnouncement({ text: 'x', startsAt: 'yesterday', endsAt: 'now' }).then(
    () => assert.unreachable('accepted'),
    (e: Error) => assert.match(e.message, /not a valid time/),
  );
  await h.admin
    .createAnnouncement({ text: 'x', startsAt: '2030-01-02T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' })
    .then(
      () => assert.unreachable('accepted'),
      (e: Error) => assert.match(e.message, /after/),
    );
  const list = await h.api(alice.token, 'GET', '/api/v1/announcements');
  assert.is(list.status, 200);
  assert.equal(
    list.body.map((a: any) => [a.content, a.all_day, a.read]),
    [
      ['<p>Maintenance tonight</p>', false, false],
      ['<p>Picnic</p>', true, false],
    ],
  );
  assert.is(list.body[1].starts_at, '2030-06-01T10:00:00.000Z');
  assert.type(list.body[0].id, 'string');
});

test('dismiss marks read (twice is no error); the list leaves dismissed ones out unless with_dismissed', async () => {
  const [first] = (await h.api(alice.token, 'GET', '/api/v1/announcements')).body;
  assert.is((await h.api(alice.token, 'POST', `/api/v1/announcements/${first.id}/dismiss`)).status, 200);
  assert.is((await h.api(alice.token, 'POST', `/api/v1/announcements/${first.id}/dismiss`)).status, 200);
  const visible = await h.api(alice.token, 'GET', '/api/v1/announcements');
  assert.ok(!visible.body.some((a: any) => a.id === first.id));
  const all = await h.api(alice.token, 'GET', '/api/v1/announcements?with_dismissed=true');
  assert.is(all.body.find((a: any) => a.id === first.id).read, true);
  assert.is((await h.api(bob.token, 'GET', '/api/v1/announcements')).body.length, 2, 'dismissal is per user');
  assert.is((await h.api(alice.token, 'POST', '/api/v1/announcements/99999/dismiss')).status, 404);
});

test('reactions: add (Unicode or custom emoji), count, me; remove; unknown names 422', async () => {
  const [, second] = (await h.api(bob.token, 'GET', '/api/v1/announcements')).body;
  const heart = encodeURIComponent('❤️');
  assert.is((await h.api(alice.token, 'PUT', `/api/v1/announcements/${second.id}/reactions/${heart}`)).status, 200);
  assert.is((await h.api(bob.token, 'PUT', `/api/v1/announcements/${second.id}/reactions/${heart}`)).status, 200);
  assert.is((await h.api(bob.token, 'PUT', `/api/v1/announcements/${second.id}/reactions/blobcat`)).status, 200);
  assert.is((await h.api(bob.token, 'PUT', `/api/v1/announcements/${second.id}/reactions/notanemoji`)).status, 422);
  let mine = (await h.api(alice.token, 'GET', '/api/v1/announcements')).body.find((a: any) => a.id === second.id);
  assert.equal(
    mine.reactions.map((r: any) => [r.name, r.count, r.me]),
    [
      ['❤️', 2, true],
      ['blobcat', 1, false],
    ],
  );
  assert.is(mine.reactions[1].url, 'http://127.0.0.1/e.png');
  assert.is((await h.api(alice.token, 'DELETE', `/api/v1/announcements/${second.id}/reactions/${heart}`)).status, 200);
  mine = (await h.api(alice.token, 'GET', '/api/v1/announcements')).body.find((a: any) => a.id === second.id);
  assert.equal(
    mine.reactions.map((r: any) => [r.name, r.count, r.me]),
    [
      ['❤️', 1, false],
      ['blobcat', 1, false],
    ],
  );
});

test.run();
