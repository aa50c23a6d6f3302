/**
 * Invites on a box whose registrations are closed: the owner makes links (expiry, uses) on the
 * owner API; a link's page and Mastodon's POST /api/v1/accounts with invite_code let people in;
 * expired, used-up and unknown links are refused in words; two people racing for the last use
 * cannot both get it; invited accounts are listed for the owner.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import type { Knex } from 'knex';
import { rawRows } from '../../daemon/store/dialect.js';

let h: SocialHarness;
let owner: TestAccount;
let alice: TestAccount;
let appToken: string;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_REGISTRATIONS: 'closed' });
  owner = await h.account('boss', { owner: true, scopes: 'admin:read admin:write' });
  alice = await h.account('alice');
  appToken = await h.clientToken();
});
test.after(async () => {
  await h.stop();
});

const invite = (body: Record<string, unknown>) => h.api(owner.token, 'POST', '/api/nestbox/v1/invites', body);
const signUp = (username: string, code?: string) =>
  h.api(appToken, 'POST', '/api/v1/accounts', {
    username,
    email: `${username}@example.test`,
    password: 'family pass 123',
    agreement: true,
    locale: 'en',
    ...(code ? { invite_code: code } : {}),
  });
const page = async (code: string) => {
  const response = await fetch(`${h.url}/invite/${code}`);
  return { status: response.status, text: await response.text() };
};

test('the owner makes invite links with Mastodon’s choices of expiry and uses; others may not', async () => {
  const made = await invite({ expires_in: 604800, max_uses: 1 });
  assert.is(made.status, 201);
  assert.match(made.body.url, new RegExp(`^${h.url}/invite/[A-Za-z0-9]{10}$`));
  assert.equal([made.body.state, made.body.uses, made.body.max_uses], ['usable', 0, 1]);
  assert.ok(Date.parse(made.body.expires_at) > Date.now() + 6 * 86400_000);
  const forever = await invite({ expires_in: null, max_uses: null });
  assert.equal([forever.body.expires_at, forever.body.max_uses], [null, null]);
  const bad = await invite({ expires_in: 7, max_uses: 3 });
  assert.is(bad.status, 422);
  assert.equal(Object.keys(bad.body.details).sort(), ['expires_in', 'max_uses']);
  assert.is((await h.api(alice.token, 'POST', '/api/nestbox/v1/invites', { max_uses: 1 })).status, 403);
  assert.is((await h.api(null, 'GET', '/api/nestbox/v1/invites')).status, 401);
  const list = (await h.api(owner.token, 'GET', '/api/nestbox/v1/invites')).body;
  assert.equal(
    list.map((i: any) => i.code),
    [forever.body.code, made.body.code],
  );
});

test('an invite lets a person in while registrations are closed, once; then its page and the API say it is used', async () => {
  assert.is((await signUp('stranger')).status, 403);
  const { body } = await invite({ expires_in: 86400, max_uses: 1 });
  const open = await page(body.code);
  assert.is(open.status, 200);
  assert.match(open.text, /id="signup-form"/);
  const joined = await signUp('cousin', body.code);
  assert.is(joined.status, 200, JSON.stringify(joined.body));
  const me = await h.api(joined.body.access_token, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(me.body.username, 'cousin');
  const again = await signUp('cousin2', body.code);
  assert.is(again.status, 403);
  assert.match(again.body.error, /used as many times as it allows/);
  const used = await page(body.code);
  assert.is(used.status, 410);
  assert.match(used.text, /used as many times as it allows/);
  const invited = (await h.api(owner.token, 'GET', '/api/nestbox/v1/invites/accounts')).body;
  assert.equal(
    invited.map((a: any) => [a.username, a.invite_code]),
    [['cousin', body.code]],
  );
});

test('an expired invite and an unknown code are refused plainly', async () => {
  const { body } = await invite({ expires_in: 3600, max_uses: 5 });
  const expired = await h.api(owner.token, 'DELETE', `/api/nestbox/v1/invites/${body.id}`);
  assert.is(expired.body.state, 'expired');
  const shown = await page(body.code);
  assert.is(shown.status, 410);
  assert.match(shown.text, /has expired/);
  const refused = await signUp('late', body.code);
  assert.is(refused.status, 403);
  assert.match(refused.body.error, /has expired/);
  const unknown = await page('NoSuchCode');
  assert.is(unknown.status, 404);
  assert.match(unknown.text, /no such invite/);
  assert.is((await h.api(owner.token, 'DELETE', '/api/nestbox/v1/invites/999999')).status, 404);
});

test('two people racing for the last use: one gets in, the other is told, nothing half-made', async () => {
  const { body } = await invite({ expires_in: 3600, max_uses: 1 });
  const answers = await Promise.all([signUp('racer_one', body.code), signUp('racer_two', body.code)]);
  const statuses = answers.map((a) => a.status).sort();
  assert.is(statuses[0], 200, JSON.stringify(answers.map((a) => a.body)));
  assert.ok([403, 422].includes(statuses[1]), String(statuses[1]));
  const loser = answers.find((a) => a.status !== 200)!;
  assert.match(JSON.stringify(loser.body), /used/);
  const db = (h.admin as any).db as Knex;
  const [{ n }] = await rawRows<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM accounts WHERE username IN ('racer_one', 'racer_two')`,
  );
  assert.is(n, 1);
  const [{ uses }] = await rawRows<{ uses: number }>(db, 'SELECT uses FROM invites WHERE code = ?', [body.code]);
  assert.is(uses, 1);
});

test.run();
