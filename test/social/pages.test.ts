/** The public web pages through HTTP: landing, profile, post, RSS, negotiation, visibility, caching. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requesterDomain } from '../../daemon/social/pages/requester.js';
import { uploadPng } from '../helpers/media-files.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ada: TestAccount, bob: TestAccount, cyd: TestAccount, dee: TestAccount;
const ids: Record<string, string> = {};

async function post(who: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await h.api(who.token, 'POST', '/api/v1/statuses', body);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

async function page(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(h.url + path, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

test.before(async () => {
  // The setup side is another address, so the box's front page here is the landing page even in setup mode.
  h = await startSocialDaemon({ NESTBOX_SETUP_AP_ADDRESS: '192.168.4.1' });
  ada = await h.account('ada', { owner: true });
  [bob, cyd, dee] = await Promise.all([h.account('bob'), h.account('cyd'), h.account('dee')]);
  const admin = await h.token('ada', 'admin:read:accounts admin:write:accounts');
  await h.api(ada.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    display_name: 'Ada <Lovelace>',
    note: 'Counting engines & <script>alert(1)</script>',
    fields_attributes: { 0: { name: 'Site', value: 'https://ada.example' } },
    discoverable: true,
  });
  await h.api(dee.token, 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: false });
  ids.public = await post(ada, { status: 'hello public world #garden' });
  ids.unlisted = await post(ada, { status: 'quiet unlisted note', visibility: 'unlisted' });
  ids.private = await post(ada, { status: 'followers-only secret', visibility: 'private' });
  ids.direct = await post(ada, { status: '@bob direct secret', visibility: 'direct' });
  ids.cw = await post(ada, { status: 'the spoiled ending', spoiler_text: 'Film spoilers' });
  ids.reply = await post(dee, { status: '@ada a public reply', in_reply_to_id: ids.public });
  ids.hiddenReply = await post(dee, {
    status: '@ada a private reply',
    in_reply_to_id: ids.public,
    visibility: 'private',
  });
  ids.boosted = await post(bob, { status: 'bob says something boostable' });
  assert.is((await h.api(ada.token, 'POST', `/api/v1/statuses/${ids.boosted}/reblog`)).status, 200);
  ids.pinned = await post(ada, { status: 'pinned introduction' });
  assert.is((await h.api(ada.token, 'POST', `/api/v1/statuses/${ids.pinned}/pin`)).status, 200);
  const media = await uploadPng(h.url, ada.token, 'A red <square> on white');
  ids.media = await post(ada, { status: 'a picture', media_ids: [media] });
  ids.script = await post(ada, { status: '<script>alert("x")</script> & <b>bold</b>' });
  await post(cyd, { status: 'cyd was here' });
  assert.is((await h.api(admin, 'POST', `/api/v1/admin/accounts/${bob.id}/action`, { type: 'silence' })).status, 200);
  assert.is((await h.api(admin, 'POST', `/api/v1/admin/accounts/${cyd.id}/action`, { type: 'suspend' })).status, 200);
});
test.after(async () => {
  await h?.stop();
});

test('the profile shows the card, pinned and public and unlisted posts, never private or direct', async () => {
  const res = await page('/@ada');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.match(res.text, /Ada &lt;Lovelace&gt;/, 'display name escaped');
  assert.not.match(res.text, /<script/i, 'no script, not even from the bio or a post');
  assert.match(res.text, /hello public world/);
  assert.match(res.text, /quiet unlisted note/);
  assert.match(res.text, /pinned introduction/);
  assert.match(res.text, /<h2 id="pinned-title">Pinned<\/h2>/);
  assert.not.match(res.text, /followers-only secret/);
  assert.not.match(res.text, /direct secret/);
  assert.match(res.text, /<details>\s*<summary>Film spoilers<\/summary>/, 'content warning collapsed');
  assert.match(res.text, /boosted[\s\S]*bob says something boostable/, 'a boost shown as such');
  assert.match(
    res.text,
    /<a href="https:\/\/ada.example" target="_blank" rel="nofollow noopener me" translate="no">https:\/\/ada.example</,
  );
  assert.match(res.text, /<main id="main">/);
  assert.match(res.text, /<link rel="alternate" type="application\/activity\+json" href="[^"]+\/users\/ada"\s*\/?>/);
  assert.match(res.text, /<meta property="og:title" content="Ada &lt;Lovelace&gt; \(@ada@/);
  assert.match(res.text, /<meta name="twitter:card" content="summary"\s*\/?>/);
  assert.not.match(res.text, /noindex/, 'a discoverable account may be indexed');
  assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
  assert.not.match(res.headers.get('content-security-policy')!, /script-src/);
  assert.match(res.headers.get('vary')!, /Accept/);
});

test('a post page shows the post and its public thread, not private replies', async () => {
  const res = await page(`/@ada/${ids.public}`);
  assert.is(res.status, 200);
  assert.match(res.text, /class="status focused"[\s\S]*hello public world/);
  assert.match(res.text, /a public reply/);
  assert.not.match(res.text, /a private reply/);
  assert.match(res.text, /<meta property="og:type" content="article"\s*\/?>/);
  assert.is((await page(`/@dee/${ids.reply}`)).status, 200);
  assert.is((await page(`/@dee/${ids.hiddenReply}`)).status, 404);
  const own = await page(`/@ada/${ids.script}`);
  assert.match(own.text, /&lt;script&gt;alert/, 'typed markup is shown as text');
  assert.not.match(own.text, /<script/i);
});

test('media carry their alt text; an account that is not discoverable is noindex', async () => {
  const res = await page(`/@ada/${ids.media}`);
  assert.match(res.text, /<img src="[^"]+" alt="A red &lt;square&gt; on white"/);
  assert.match(res.text, /<meta property="og:image" content="http:\/\/127\.0\.0\.1:\d+\/system\/media_attachments\//);
  const dee = await page('/@dee');
  assert.match(dee.text, /<meta name="robots" content="noindex, noarchive"/);
});

test("private and direct posts, unknown ids and others' ids answer 404 as pages", async () => {
  for (const id of [ids.private, ids.direct, '99999999999', 'abc', ids.boosted]) {
    const res = await page(`/@ada/${id}`);
    assert.is(res.status, 404, id);
    assert.not.match(res.text, /secret/);
  }
  assert.is((await page('/@nobody')).status, 404);
});

test('a suspended account answers 410; a limited one shows nothing publicly', async () => {
  const gone = await page('/@cyd');
  assert.is(gone.status, 410);
  assert.not.match(gone.text, /cyd was here/);
  assert.is((await page('/@cyd.rss')).status, 410);
  const limited = await page('/@bob');
  assert.not.match(limited.text, /boostable|public reply/);
  assert.match(limited.text, /only shown to its followers/);
  assert.not.match((await page(`/@bob/${ids.boosted}`)).text, /boostable/);
  assert.not.match((await page('/@bob.rss')).text, /<item>/);
});

test('pagination with ?max_id= goes to older posts; a bad max_id is refused', async () => {
  for (let i = 0; i < 21; i++) await post(ada, { status: `filler post ${i}` });
  const first = await page('/@ada');
  assert.match(first.text, /filler post 20/);
  assert.not.match(first.text, /hello public world/, 'older posts are on the next page');
  const next = /<a rel="next" href="[^"?]+\?max_id=(\d+)">/.exec(first.text);
  assert.ok(next, 'a link to older posts');
  const second = await page(`/@ada?max_id=${next[1]}`);
  assert.is(second.status, 200);
  assert.match(second.text, /hello public world/);
  assert.not.match(second.text, /filler post 20/);
  assert.not.match(second.text, /id="pinned-title"/, 'pinned posts only on the first page');
  assert.is((await page('/@ada?max_id=%3Cx%3E')).status, 400);
  assert.is((await page('/@ada?max_id=18446744073709551616')).status, 400, 'past the 64-bit range');
});

test('content negotiation: ActivityPub JSON to activity+json and ld+json with the profile, HTML otherwise', async () => {
  for (const accept of [
    'application/activity+json',
    'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
  ]) {
    const actor = await page('/@ada', { accept });
    assert.is(actor.status, 200, accept);
    assert.match(actor.headers.get('content-type')!, /application\/activity\+json/);
    assert.is(JSON.parse(actor.text).type, 'Person');
    assert.match(actor.headers.get('vary')!, /Accept/);
    const note = await page(`/@ada/${ids.public}`, { accept });
    assert.is(JSON.parse(note.text).type, 'Note');
  }
  assert.is((await page(`/@ada/${ids.private}`, { accept: 'application/activity+json' })).status, 404);
  const browser = await page('/@ada', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
  assert.match(browser.headers.get('content-type')!, /text\/html/);
  assert.match((await page('/@ada', { accept: 'application/ld+json' })).headers.get('content-type')!, /text\/html/);
});

test('the account RSS follows the RSS 2.0 rules and carries public posts only', async () => {
  const res = await page('/@ada.rss');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/rss\+xml/);
  assert.match(res.text, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<rss version="2.0"/);
  const channel = /<channel>([\s\S]*)<\/channel>/.exec(res.text)![1];
  const head = channel.split('<item>')[0];
  for (const tag of ['title', 'link', 'description']) assert.match(head, new RegExp(`<${tag}>[^<]+</${tag}>`), tag);
  const items = channel.split('<item>').slice(1);
  assert.ok(items.length > 0);
  for (const item of items) {
    assert.match(item, /<title>[^<]+<\/title>/);
    const guid = /<guid isPermaLink="true">([^<]+)<\/guid>/.exec(item);
    assert.ok(guid, 'a permalink guid');
    assert.match(guid[1], /^http:\/\/127\.0\.0\.1:\d+\/@ada\/\d+$/);
    const date = /<pubDate>([^<]+)<\/pubDate>/.exec(item)![1];
    assert.match(
      date,
      /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/,
    );
    assert.not.match(/<description>([\s\S]*)<\/description>/.exec(item)![1], /</, 'description HTML escaped');
  }
  assert.match(res.text, /&lt;p&gt;filler post 20/);
  assert.not.match(res.text, /quiet unlisted note|secret/);
});

test("the hashtag RSS lists the tag's public posts", async () => {
  const res = await page('/tags/garden.rss');
  assert.is(res.status, 200);
  assert.match(res.text, /<title>#garden on Nestbox<\/title>/);
  assert.match(res.text, /hello public world/);
  assert.is((await page('/tags/nothing-here.rss')).text.includes('<item>'), false);
});

test('pages carry an ETag and answer 304 when it still holds, a new post changes it', async () => {
  const first = await page('/@ada');
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[\w-]+"$/);
  const again = await page('/@ada', { 'if-none-match': etag });
  assert.is(again.status, 304);
  assert.is(again.text, '');
  await post(ada, { status: 'something new' });
  assert.is((await page('/@ada', { 'if-none-match': etag })).status, 200);
});

test('the landing page shows the instance, the owner card, newest public posts and how to follow', async () => {
  const res = await page('/');
  assert.is(res.status, 200);
  assert.match(res.text, /<h1 id="site-title">Nestbox<\/h1>/);
  assert.match(res.text, /Ada &lt;Lovelace&gt;/);
  assert.match(res.text, /something new/);
  assert.not.match(res.text, /secret|quiet unlisted note/);
  assert.match(res.text, /search for <code>@ada@127\.0\.0\.1:\d+<\/code>/);
  assert.match(res.text, /href="\/dashboard"/);
  const css = await page('/pages.css');
  assert.match(css.headers.get('content-type')!, /text\/css/);
  assert.match(css.text, /prefers-color-scheme: dark/);
});

test("a server an author blocks, naming itself in its User-Agent, gets none of the author's pages; others do", async () => {
  const blocked = { 'user-agent': 'http.rb/5.2.0 (Mastodon/4.3.0; +https://Blocked.example/)' };
  const other = { 'user-agent': 'http.rb/5.2.0 (Mastodon/4.3.0; +https://friendly.example/)' };
  assert.is((await h.api(ada.token, 'POST', '/api/v1/domain_blocks', { domain: 'blocked.example' })).status, 200);
  try {
    for (const path of ['/@ada', `/@ada/${ids.public}`, '/@ada.rss']) {
      const refused = await page(path, blocked);
      assert.is(refused.status, 404, path);
      assert.not.match(refused.text, /hello public world/, path);
      assert.is((await page(path, other)).status, 200, `${path} for another server`);
    }
    const landing = await page('/', blocked);
    assert.is(landing.status, 200);
    assert.not.match(landing.text, /Ada &lt;Lovelace&gt;|something new/, 'no owner card, no posts of hers');
    assert.match((await page('/')).text, /something new/, 'a browser still gets the page as before');
    const reply = await page(`/@dee/${ids.reply}`, blocked);
    assert.match(reply.text, /a public reply/, "another author's post still shows");
    assert.not.match(reply.text, /hello public world/, 'without the blocking author in its thread');
  } finally {
    await h.api(ada.token, 'DELETE', '/api/v1/domain_blocks', { domain: 'blocked.example' });
  }
});

test('the servers fediverse software names in its User-Agent are read; a browser names none', () => {
  const cases: Array<[string, string | null]> = [
    ['http.rb/5.2.0 (Mastodon/4.3.0; +https://mastodon.example/)', 'mastodon.example'],
    ['gotosocial (+https://GTS.example) gotosocial/0.17.0', 'gts.example'],
    ['Misskey/2024.10.1 (https://misskey.example)', 'misskey.example'],
    ['Pleroma 2.6.0; https://pleroma.example:8443 <admin@pleroma.example>', 'pleroma.example:8443'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36', null],
    ['', null],
  ];
  assert.equal(
    cases.map(([agent]) => requesterDomain(agent)),
    cases.map(([, domain]) => domain),
  );
});

test.run();
