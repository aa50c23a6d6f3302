/** Instance records, languages, custom emojis, peers search and the streaming redirect. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;

test.before(async () => {
  h = await startSocialDaemon();
  await h.account('owner', { owner: true });
  const db = (h.admin as any).db;
  const now = new Date().toISOString();
  await db.raw(`INSERT INTO server_rules (text, hint, position) VALUES ('Be kind', 'No harassment', 1)`);
  for (const [shortcode, visible] of [
    ['blobcat', 1],
    ['secretcat', 0],
  ] as const) {
    await db.raw(
      `INSERT INTO custom_emojis (shortcode, image_url, static_url, visible_in_picker, created_at) VALUES (?, ?, ?, ?, ?)`,
      [shortcode, `${h.url}/emoji/${shortcode}.png`, `${h.url}/emoji/${shortcode}.png`, visible, now],
    );
  }
  for (const [id, domain] of [
    ['90001', 'Mastodon.Example'],
    ['90002', 'masto.other'],
    ['90003', 'pleroma.example'],
  ]) {
    await db.raw(
      `INSERT INTO accounts (id, username, domain, uri, created_at, updated_at) VALUES (?, 'x', ?, ?, ?, ?)`,
      [id, domain, `https://${domain}/u/x`, now, now],
    );
  }
});
test.after(async () => {
  await h?.stop();
});

test('v1 instance: version, urls.streaming_api on the streaming port, stats, rules, languages; open even with a bad token', async () => {
  const res = await h.api('not-a-token', 'GET', '/api/v1/instance');
  assert.is(res.status, 200);
  assert.match(res.body.version, /^4\.5\.\d+ \(compatible; Nestbox /);
  assert.is(res.body.urls.streaming_api, `ws://127.0.0.1:${h.daemon.streamingPort}`);
  assert.is(res.body.stats.user_count, 1);
  assert.is(res.body.stats.domain_count, 3);
  assert.equal(res.body.rules, [{ id: '1', text: 'Be kind', hint: 'No harassment' }]);
  assert.equal(res.body.languages, ['en']);
  assert.is(res.body.contact_account.username, 'owner');
});

test('v2 instance: banner, configuration.urls.streaming, vapid key, api_versions', async () => {
  const res = await h.api(null, 'GET', '/api/v2/instance');
  assert.is(res.status, 200);
  assert.ok(res.body.thumbnail.url);
  assert.is(res.body.configuration.urls.streaming, `ws://127.0.0.1:${h.daemon.streamingPort}`);
  assert.match(res.body.configuration.vapid.public_key, /^[A-Za-z0-9_-]{80,}$/);
  assert.type(res.body.api_versions.mastodon, 'number');
  assert.is(res.body.configuration.media_attachments.image_size_limit, 16 * 1024 * 1024);
  assert.is(res.body.configuration.media_attachments.video_size_limit, 99 * 1024 * 1024);
});

test('languages list, custom emojis (unlisted ones kept out of the picker)', async () => {
  const languages = await h.api(null, 'GET', '/api/v1/instance/languages');
  assert.ok(languages.body.some((l: any) => l.code === 'en' && l.name === 'English'));
  const emojis = await h.api(null, 'GET', '/api/v1/custom_emojis');
  assert.equal(
    emojis.body.map((e: any) => [e.shortcode, e.visible_in_picker]),
    [
      ['blobcat', true],
      ['secretcat', false],
    ],
  );
});

test('the about pages: extended description and privacy policy as HTML; no translation, no terms of service', async () => {
  const about = await h.api(null, 'GET', '/api/v1/instance/extended_description');
  assert.is(about.status, 200);
  assert.match(about.body.content, /^<p>.*Nestbox/);
  assert.ok('updated_at' in about.body);
  const privacy = await h.api(null, 'GET', '/api/v1/instance/privacy_policy');
  assert.match(privacy.body.content, 'stays on the box');
  assert.not.ok(Number.isNaN(Date.parse(privacy.body.updated_at)));
  assert.equal((await h.api(null, 'GET', '/api/v1/instance/translation_languages')).body, {});
  assert.is(
    (await h.api(null, 'GET', '/api/v1/instance/terms_of_service')).status,
    404,
    'none, as on a Mastodon server without terms',
  );
});

test('peers search matches domains case-insensitively by prefix', async () => {
  assert.equal((await h.api(null, 'GET', '/api/v1/peers/search?q=MASTO')).body, ['masto.other', 'mastodon.example']);
  assert.equal((await h.api(null, 'GET', '/api/v1/peers/search?q=pleroma')).body, ['pleroma.example']);
  assert.equal((await h.api(null, 'GET', '/api/v1/peers/search?q=')).body, []);
});

test('GET /api/v1/streaming redirects to the streaming server, keeping its port and the path', async () => {
  const res = await h.api(null, 'GET', '/api/v1/streaming?stream=public');
  assert.is(res.status, 301);
  assert.is(res.headers.get('location'), `http://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming?stream=public`);
});

test.run();
