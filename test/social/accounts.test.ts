/** Accounts: registration modes and validation, credentials, lookup, search, show. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { runAdmin } from '../helpers/admin-cli.js';

let h: SocialHarness;
let owner: TestAccount;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_REGISTRATIONS: 'approval' });
  owner = await h.account('boss', { owner: true });
});
test.after(async () => {
  await h?.stop();
});

async function appToken(scopes = 'read write') {
  const app = await h.api(null, 'POST', '/api/v1/apps', {
    client_name: 'signup',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes,
  });
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.body.client_id,
    client_secret: app.body.client_secret,
    scope: scopes,
  });
  return token.body.access_token as string;
}

test('registration validation errors carry details per field', async () => {
  const token = await appToken();
  const res = await h.api(token, 'POST', '/api/v1/accounts', {
    username: 'bad name!',
    email: 'nope',
    password: 'short',
    agreement: false,
  });
  assert.is(res.status, 422);
  assert.match(res.body.error, /^Validation failed: /);
  assert.is(res.body.details.username[0].error, 'ERR_INVALID');
  assert.is(res.body.details.email[0].error, 'ERR_INVALID');
  assert.is(res.body.details.password[0].error, 'ERR_TOO_SHORT');
  assert.is(res.body.details.agreement[0].error, 'ERR_ACCEPTED');
  const taken = await h.api(token, 'POST', '/api/v1/accounts', {
    username: 'BOSS',
    email: 'boss@example.test',
    password: 'long enough pw',
    agreement: true,
  });
  assert.is(taken.body.details.username[0].error, 'ERR_TAKEN');
  assert.is(taken.body.details.email[0].error, 'ERR_TAKEN');
});

test('approval mode: the account is created with a reason, gets a token, and waits for approval (403)', async () => {
  const token = await appToken();
  const res = await h.api(token, 'POST', '/api/v1/accounts', {
    username: 'newbie',
    email: 'newbie@example.test',
    password: 'long enough pw',
    agreement: true,
    reason: 'I live here',
    locale: 'en',
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.token_type, 'Bearer');
  assert.is(res.body.scope, 'read write');
  const me = await h.api(res.body.access_token, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(me.status, 403);
  assert.equal(me.body, { error: 'Your login is currently pending approval' });
  const user = await h.admin.social.ctx
    .db('users')
    .whereRaw('email = ?', ['newbie@example.test'])
    .first('reason', 'approved');
  assert.equal(user, { reason: 'I live here', approved: 0 });
});

test('an invite code lets a registration in at once; a wrong one is a validation error', async () => {
  await h.admin.social.ctx
    .db('invites')
    .insert({ code: 'WELCOME', max_uses: 1, uses: 0, created_at: new Date().toISOString() });
  const token = await appToken();
  const bad = await h.api(token, 'POST', '/api/v1/accounts', {
    username: 'invited',
    email: 'inv@example.test',
    password: 'long enough pw',
    agreement: true,
    invite_code: 'NOPE',
  });
  assert.is(bad.status, 422);
  assert.is(bad.body.details.invite_code[0].error, 'ERR_INVALID');
  const ok = await h.api(token, 'POST', '/api/v1/accounts', {
    username: 'invited',
    email: 'inv@example.test',
    password: 'long enough pw',
    agreement: true,
    invite_code: 'WELCOME',
  });
  assert.is(ok.status, 200);
  assert.is((await h.api(ok.body.access_token, 'GET', '/api/v1/accounts/verify_credentials')).status, 200);
  const used = await h.api(token, 'POST', '/api/v1/accounts', {
    username: 'invited2',
    email: 'inv2@example.test',
    password: 'long enough pw',
    agreement: true,
    invite_code: 'WELCOME',
  });
  assert.is(used.status, 422, 'the invite is used up');
});

test('registration needs an app token with write:accounts', async () => {
  const readOnly = await appToken('read');
  assert.is((await h.api(readOnly, 'POST', '/api/v1/accounts', {})).status, 403);
  assert.is((await h.api(null, 'POST', '/api/v1/accounts', {})).status, 401);
});

test('verify_credentials gives the credential account with source and follow_requests_count', async () => {
  const { body } = await h.api(owner.token, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(body.id, owner.id);
  assert.is(body.acct, 'boss');
  assert.equal(body.source.privacy, 'public');
  assert.is(body.source.follow_requests_count, 0);
  for (const key of ['id', 'acct', 'url', 'avatar', 'avatar_static', 'header', 'header_static', 'bot', 'locked'])
    assert.ok(key in body, key);
  assert.is(body.avatar_static, body.avatar, 'the static copy of a non-animated image is the image');
  const alias = await h.api(owner.token, 'GET', '/api/v1/verify_credentials');
  assert.is(alias.body.id, owner.id);
  const avatar = await fetch(body.avatar);
  assert.is(avatar.status, 200);
  assert.is(avatar.headers.get('content-type'), 'image/png');
});

test('update_credentials changes display name, note, locked, bot, fields and default privacy; validates lengths', async () => {
  const res = await h.api(owner.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    display_name: 'The Boss',
    note: 'Hello <b>world</b>\nsecond line',
    locked: true,
    bot: true,
    source: { privacy: 'unlisted', language: 'en' },
    fields_attributes: [{ name: 'site', value: 'https://x.example' }],
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.display_name, 'The Boss');
  assert.is(res.body.note, '<p>Hello &lt;b&gt;world&lt;/b&gt;<br />second line</p>');
  assert.is(res.body.source.note, 'Hello <b>world</b>\nsecond line');
  assert.is(res.body.locked, true);
  assert.is(res.body.bot, true);
  assert.is(res.body.source.privacy, 'unlisted');
  assert.equal(res.body.fields, [
    {
      name: 'site',
      value:
        '<a href="https://x.example" target="_blank" rel="nofollow noopener me" translate="no">https://x.example</a>',
      verified_at: null,
    },
  ]);
  assert.equal(res.body.source.fields, [{ name: 'site', value: 'https://x.example', verified_at: null }]);
  const tooLong = await h.api(owner.token, 'PATCH', '/api/v1/accounts/update_credentials', { note: 'x'.repeat(501) });
  assert.is(tooLong.status, 422);
  assert.is(tooLong.body.details.note[0].error, 'ERR_TOO_LONG');
  const wrongType = await h.api(owner.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    display_name: { nested: true },
  });
  assert.is(wrongType.status, 400);
  const post = await h.api(owner.token, 'POST', '/api/v1/statuses', { status: 'default privacy' });
  assert.is(post.body.visibility, 'unlisted');
  await h.api(owner.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: false, bot: false });
});

/** A 1×1 GIF with `frames` frames, built by hand. */
function gif(frames: number): Buffer {
  const frame = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00];
  return Buffer.from([
    ...Buffer.from('GIF89a', 'latin1'),
    1,
    0,
    1,
    0,
    0x80,
    0,
    0,
    0,
    0,
    0,
    0xff,
    0xff,
    0xff,
    ...Array.from({ length: frames }, () => frame).flat(),
    0x3b,
  ]);
}

async function upload(token: string, files: Record<string, Blob>) {
  const form = new FormData();
  for (const [name, blob] of Object.entries(files)) form.append(name, blob, `${name}.bin`);
  form.append('display_name', 'With images');
  const res = await fetch(`${h.url}/api/v1/accounts/update_credentials`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('update_credentials takes avatar and header images; the static copy of an animated GIF is its first frame', async () => {
  const still = await upload(owner.token, { avatar: new Blob([gif(1)]), header: new Blob([gif(1)]) });
  assert.is(still.status, 200, JSON.stringify(still.body));
  assert.is(still.body.display_name, 'With images');
  assert.match(still.body.avatar, /\/system\/accounts\/avatars\/\d+\/original\/[0-9a-f]+\.gif$/);
  assert.is(still.body.avatar_static, still.body.avatar, 'a still image is its own static copy');
  assert.is(Buffer.compare(Buffer.from(await (await fetch(still.body.header)).arrayBuffer()), gif(1)), 0);

  const animated = await upload(owner.token, { avatar: new Blob([gif(3)]) });
  assert.is(animated.status, 200);
  assert.not.equal(animated.body.avatar_static, animated.body.avatar);
  const original = Buffer.from(await (await fetch(animated.body.avatar)).arrayBuffer());
  const first = await fetch(animated.body.avatar_static);
  assert.is(first.headers.get('content-type'), 'image/gif');
  assert.is(Buffer.compare(original, gif(3)), 0);
  assert.is(Buffer.compare(Buffer.from(await first.arrayBuffer()), gif(1)), 0);
  assert.is((await fetch(still.body.avatar)).status, 404, 'the replaced avatar is removed');

  const text = await upload(owner.token, { avatar: new Blob(['not an image']) });
  assert.is(text.status, 422);
  assert.is(text.body.details.avatar[0].error, 'ERR_INVALID');
  const big = await upload(owner.token, { avatar: new Blob([Buffer.alloc(9 * 1024 * 1024)]) });
  assert.is(big.status, 413);
  assert.is((await fetch(`${h.url}/system/accounts/avatars/1/original/..%2F..%2Fnestbox.sqlite3`)).status, 404);

  // DELETE /api/v1/profile/avatar and /header: back to the default images, the files removed.
  const current = (await h.api(owner.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
  const cleared = await h.api(owner.token, 'DELETE', '/api/v1/profile/avatar');
  assert.is(cleared.status, 200);
  assert.match(cleared.body.avatar, /missing\.png$/);
  assert.is(cleared.body.header, current.header, 'the header stays');
  assert.is((await fetch(current.avatar)).status, 404);
  assert.match((await h.api(owner.token, 'DELETE', '/api/v1/profile/header')).body.header, /missing\.png$/);
  assert.type(cleared.body.source, 'object', 'a credential account');
});

test('GET /api/v1/accounts/:id, lookup and search', async () => {
  const shown = await h.api(null, 'GET', `/api/v1/accounts/${owner.id}`);
  assert.is(shown.body.username, 'boss');
  assert.is((await h.api(null, 'GET', '/api/v1/accounts/99999')).status, 404);
  assert.is((await h.api(null, 'GET', '/api/v1/accounts/not-an-id')).status, 404);
  const host = new URL(h.url).host;
  for (const acct of ['boss', '@boss', `boss@${host}`]) {
    const found = await h.api(null, 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
    assert.is(found.body.id, owner.id, acct);
  }
  assert.is((await h.api(null, 'GET', '/api/v1/accounts/lookup?acct=nobody')).status, 404);
  assert.is((await h.api(null, 'GET', '/api/v1/accounts/search?q=bo')).status, 401, 'search requires authentication');
  const search = await h.api(owner.token, 'GET', '/api/v1/accounts/search?q=bo');
  assert.equal(
    search.body.map((a: any) => a.acct),
    ['boss'],
  );
});

test('several accounts at once: in the order asked, unknown and malformed ids left out', async () => {
  const [a, b] = [
    (await h.api(owner.token, 'GET', '/api/v1/accounts/verify_credentials')).body.id,
    (await h.account('many-ids')).id,
  ];
  const res = await h.api(null, 'GET', `/api/v1/accounts?id[]=${b}&id[]=999999&id[]=x&id[]=${a}&id[]=${b}`);
  assert.is(res.status, 200);
  assert.equal(
    res.body.map((account: { id: string }) => account.id),
    [b, a],
  );
  assert.equal((await h.api(null, 'GET', '/api/v1/accounts')).body, []);
});

test('npm run admin: create-account, token and reset-password through the command line', async () => {
  // The tool finds the daemon's database as the daemon does (its data folder, or its PostgreSQL URL).
  const run = (...args: string[]) => runAdmin({ dataDir: h.daemon.dataDir, baseUrl: h.url }, args);
  const created = await run(
    'create-account',
    '--username',
    'cli_user',
    '--email',
    'cli@example.test',
    '--password',
    'long enough pw',
    '--locked',
  );
  assert.is(created.status, 0, created.stderr);
  const token = await run('token', '--username', 'cli_user', '--scopes', 'read write');
  assert.is(token.status, 0, token.stderr);
  const accessToken = token.stdout.trim().split('\n').pop()!;
  const me = await h.api(accessToken, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(me.body.username, 'cli_user');
  assert.is(me.body.locked, true);
  const duplicate = await run(
    'create-account',
    '--username',
    'cli_user',
    '--email',
    'cli2@example.test',
    '--password',
    'long enough pw',
  );
  assert.is(duplicate.status, 1);
  assert.match(duplicate.stderr, 'username is already taken');
  const reset = await run('reset-password', '--username', 'cli_user');
  assert.is(reset.status, 0, reset.stderr);
  const verify = async () => (await h.api(accessToken, 'GET', '/api/v1/accounts/verify_credentials')).status;
  assert.is(await h.heard(verify, (status) => status !== 200), 401, 'tokens are revoked');
  let refused = false;
  try {
    await h.admin.createAccount({
      username: 'boss2',
      email: 'b2@example.test',
      password: 'long enough pw',
      owner: true,
    });
  } catch {
    refused = true;
  }
  assert.ok(refused, 'there is one owner');
});

test.run();
