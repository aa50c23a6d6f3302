/**
 * Profile links verified with rel="me" (pages served by a loopback web server), shown as verified
 * in the API and on the profile page; custom emoji in a profile on the page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { relMeLinks } from '../../daemon/social/accounts/link-verification.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ada: TestAccount;
let site: Server;
let siteUrl: string;
const fetched: string[] = [];

interface Field {
  name: string;
  value: string;
  verified_at: string | null;
}

function pages(profile: string): Record<string, { type: string; body: string }> {
  const html = (head: string, body: string) => ({
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head>${head}</head><body>${body}</body></html>`,
  });
  return {
    '/anchor': html('', `<p>Me elsewhere: <a rel="me noopener" href="${profile}">on my box</a></p>`),
    '/link-tag': html(`<link rel="ME authn" href="${profile.toUpperCase()}">`, '<p>hi</p>'),
    '/no-rel': html('', `<a href="${profile}">no rel</a>`),
    '/other-profile': html('', `<a rel="me" href="${profile}x">someone else</a>`),
    '/json': { type: 'application/json', body: JSON.stringify({ rel: 'me', href: profile }) },
  };
}

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true' });
  ada = await h.account('ada', { owner: true });
  const served = pages(`${h.url}/@ada`);
  site = createServer((req, res) => {
    fetched.push(req.url ?? '');
    const page = served[req.url ?? ''];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.after(async () => {
  await h?.stop();
  site?.close();
});

async function fields(): Promise<Field[]> {
  const res = await h.api(ada.token, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(res.status, 200);
  return res.body.fields as Field[];
}

async function fieldsOnceChecked(paths: string[], before: number): Promise<Field[]> {
  const deadline = Date.now() + 15_000;
  while (paths.some((path) => fetched.lastIndexOf(path) < before)) {
    if (Date.now() > deadline) throw new Error(`pages not fetched: ${paths.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The outcome is stored just after the last page is read.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return fields();
}

test('rel="me" is found on <a> and <link>, with rel as a token list, case-insensitively', async () => {
  const links = await relMeLinks(
    '<a rel="nofollow me" href=" https://a.example/@x ">a</a><link rel="ME" href="https://b.example">' +
      '<a rel="meh" href="https://c.example">no</a><a href="https://d.example">no</a><a rel="me">no href</a>',
  );
  assert.equal(links, ['https://a.example/@x', 'https://b.example']);
});

test('a link whose page links back with rel="me" is verified; others stay unverified', async () => {
  const before = fetched.length;
  const res = await h.api(ada.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    fields_attributes: [
      { name: 'Blog', value: `${siteUrl}/anchor` },
      { name: 'Home', value: `${siteUrl}/link-tag` },
      { name: 'Plain', value: `${siteUrl}/no-rel` },
      { name: 'Other', value: `${siteUrl}/other-profile` },
    ],
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const checked = await fieldsOnceChecked(['/anchor', '/link-tag', '/no-rel', '/other-profile'], before);
  assert.equal(
    checked.map((field) => [field.name, field.verified_at !== null]),
    [
      ['Blog', true],
      ['Home', true],
      ['Plain', false],
      ['Other', false],
    ],
  );
  assert.ok(!Number.isNaN(Date.parse(checked[0].verified_at!)), 'verified_at is a time');
  assert.match(checked[0].value, /^<a href="http:\/\/127\.0\.0\.1:\d+\/anchor" [^>]*rel="nofollow noopener me"/);
  const page = await (await fetch(`${h.url}/@ada`)).text();
  assert.is(page.match(/class="field verified"/g)?.length, 2, 'the profile page marks the two verified links');
});

test('renaming a field keeps its verification; a new address, or a page of another type, is not verified', async () => {
  const before = fetched.length;
  const res = await h.api(ada.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    fields_attributes: [
      { name: 'Weblog', value: `${siteUrl}/anchor` },
      { name: 'Data', value: `${siteUrl}/json` },
    ],
  });
  assert.is(res.status, 200);
  const checked = await fieldsOnceChecked(['/json'], before);
  assert.is(checked[0].name, 'Weblog');
  assert.ok(checked[0].verified_at, 'an unchanged address keeps its verification');
  assert.is(checked[1].verified_at, null);
  assert.is(
    fetched.slice(before).filter((path) => path === '/anchor').length,
    0,
    'a verified link is not fetched again',
  );
});

test("custom emoji in a profile's name and bio are images on its page; a shortcode inside a link stays text", async () => {
  await h.admin.social.ctx.db.raw(
    `INSERT INTO custom_emojis (shortcode, image_url, static_url, created_at) VALUES ('nestbird', ?, ?, ?)`,
    [`${h.url}/emoji/nestbird.png`, `${h.url}/emoji/nestbird.png`, new Date().toISOString()],
  );
  const res = await h.api(ada.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    display_name: 'Ada :nestbird:',
    note: 'Birds :nestbird: and https://ada.example/:nestbird:/x',
  });
  assert.is(res.status, 200);
  const page = await (await fetch(`${h.url}/@ada`)).text();
  const emoji = /<img class="emoji" src="[^"]+nestbird\.png" alt=":nestbird:"/;
  assert.match(/<h1 id="profile-name">.*?<\/h1>/s.exec(page)?.[0] ?? '', emoji, 'in the name');
  assert.match(/<div class="note">.*?<\/div>/s.exec(page)?.[0] ?? '', emoji, 'in the bio');
  assert.match(page, /href="https:\/\/ada\.example\/:nestbird:\/x"/, "the link's address is left whole");
});

test.run();
