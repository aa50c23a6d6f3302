/** OAuth 2.0: apps, the login-and-consent page, PKCE S256, state, out-of-band, tokens, revocation. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
const REDIRECT = 'http://127.0.0.1:9/callback';

test.before(async () => {
  h = await startSocialDaemon();
  await h.account('owner', { owner: true });
  await h.account('member');
});
test.after(async () => {
  await h?.stop();
});

async function registerApp(scopes = 'read write', redirect = REDIRECT) {
  const res = await h.api(null, 'POST', '/api/v1/apps', {
    client_name: 'Test app',
    redirect_uris: redirect,
    scopes,
    website: 'https://app.example',
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

function form(values: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values).toString(),
    redirect: 'manual',
  };
}

async function authorize(app: any, extra: Record<string, string>, login = 'member', password = 'pw-member-123') {
  return fetch(
    `${h.url}/oauth/authorize`,
    form({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: app.redirect_uri,
      scope: 'read write',
      login,
      password,
      decision: 'allow',
      ...extra,
    }),
  );
}

test('POST /api/v1/apps answers the credential application', async () => {
  const app = await registerApp('read write:statuses write:statuses');
  assert.type(app.id, 'string');
  assert.is(app.name, 'Test app');
  assert.is(app.website, 'https://app.example');
  assert.equal(app.scopes, ['read', 'write:statuses']);
  assert.equal(app.redirect_uris, [REDIRECT]);
  assert.is(app.redirect_uri, REDIRECT);
  assert.ok(app.client_id.length >= 32 && app.client_secret.length >= 32);
  assert.is(app.client_secret_expires_at, 0);
  const defaults = await h.api(null, 'POST', '/api/v1/apps', {
    client_name: 'x',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
  });
  assert.equal(defaults.body.scopes, ['read']);
  assert.is(defaults.body.website, null);
});

test('POST /api/v1/apps validates name, redirect URIs, scopes and website with 422', async () => {
  const cases: Array<[object, RegExp]> = [
    [{ client_name: '', redirect_uris: REDIRECT }, /name can't be blank/],
    [{ client_name: 'x'.repeat(61), redirect_uris: REDIRECT }, /too long/],
    [{ client_name: 'a', redirect_uris: '' }, /Redirect URI can't be blank/],
    [{ client_name: 'a', redirect_uris: 'not a uri' }, /absolute URI/],
    [{ client_name: 'a', redirect_uris: `http://x/${'a'.repeat(2000)}` }, /too long/],
    [{ client_name: 'a', redirect_uris: REDIRECT, scopes: 'read destroy' }, /Scopes/],
    [{ client_name: 'a', redirect_uris: REDIRECT, website: 'ftp://nope' }, /Website/],
  ];
  for (const [body, message] of cases) {
    const res = await h.api(null, 'POST', '/api/v1/apps', body);
    assert.is(res.status, 422, JSON.stringify(body).slice(0, 60));
    assert.match(res.body.error, message);
  }
  const malformed = await h.api(null, 'POST', '/api/v1/apps', '{"client_name": ');
  assert.is(malformed.status, 400);
  assert.type(malformed.body.error, 'string');
});

test('the authorize page shows the app and the scopes; bad requests get an error page', async () => {
  const app = await registerApp();
  const page = await fetch(
    `${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=read&state=s1`,
  );
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type')!, /text\/html/);
  const html = await page.text();
  assert.match(html, 'Authorize <strong>Test app</strong>');
  assert.match(html, '<code>read</code>');
  assert.match(html, 'name="state" value="s1"');
  assert.is((await fetch(`${h.url}/oauth/authorize?response_type=code&client_id=nope`)).status, 401);
  assert.is(
    (
      await fetch(
        `${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&redirect_uri=http://evil.example/`,
      )
    ).status,
    400,
  );
  const scope = await fetch(`${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&scope=admin:read`);
  assert.is(scope.status, 400);
  assert.match(await scope.text(), 'scope is invalid');
  const css = await fetch(`${h.url}/oauth/assets/oauth.css`);
  assert.is(css.status, 200);
});

test("the box's own dashboard gets a sign-in page; with another redirect URI, or without PKCE and state, the consent page", async () => {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const dashboard = `${h.url}/dashboard/`;
  const page = async (app: any, redirect: string, extra: Record<string, string>) => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: redirect,
      scope: 'admin:read admin:write',
      ...extra,
    });
    const response = await fetch(`${h.url}/oauth/authorize?${query.toString()}`);
    assert.is(response.status, 200);
    const html = await response.text();
    const signIn = html.includes('Sign in to your Nestbox');
    assert.is(signIn, !html.includes('<code>admin:read</code>'), 'a sign-in lists no scopes, a consent page does');
    return signIn ? 'sign-in' : 'consent';
  };
  const pkce = { state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256' };
  const own = await registerApp('admin:read admin:write', dashboard);
  assert.is(await page(own, dashboard, pkce), 'sign-in');
  assert.is(await page(own, dashboard, { code_challenge: challenge, code_challenge_method: 'S256' }), 'consent');
  assert.is(await page(own, dashboard, { state: 'st-1' }), 'consent');
  // The dashboard's path on another origin, or an app that may also send codes elsewhere: consent.
  const elsewhere = await registerApp('admin:read admin:write', 'http://nestbox.evil.example/dashboard/');
  assert.is(await page(elsewhere, 'http://nestbox.evil.example/dashboard/', pkce), 'consent');
  const twoWays = await registerApp('admin:read admin:write', `${dashboard}\n${REDIRECT}`);
  assert.is(await page(twoWays, dashboard, pkce), 'consent');
  // The sign-in still ends in a code for the dashboard's own page, exchanged with its verifier.
  const verifier = randomBytes(32).toString('base64url');
  const signedIn = await authorize(
    own,
    {
      state: 'st-2',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'admin:read admin:write',
    },
    'owner',
    'pw-owner-123',
  );
  assert.is(signedIn.status, 302);
  const back = new URL(signedIn.headers.get('location')!);
  assert.is(`${back.origin}${back.pathname}`, dashboard);
  assert.is(back.searchParams.get('state'), 'st-2');
  const exchange = (code_verifier: string) =>
    h.api(null, 'POST', '/oauth/token', {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code'),
      client_id: own.client_id,
      client_secret: own.client_secret,
      redirect_uri: dashboard,
      code_verifier,
    });
  const token = await exchange(verifier);
  assert.is(token.status, 200, JSON.stringify(token.body));
  assert.is(token.body.scope, 'admin:read admin:write');
});

test('authorization code with PKCE S256 and state: login, redirect, exchange once', async () => {
  const app = await registerApp();
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const wrong = await authorize(
    app,
    { state: 'st', code_challenge: challenge, code_challenge_method: 'S256' },
    'member',
    'wrong password',
  );
  assert.is(wrong.status, 401);
  assert.match(await wrong.text(), 'Invalid username, e-mail or password.');

  const ok = await authorize(app, { state: 'st-42', code_challenge: challenge, code_challenge_method: 'S256' });
  assert.is(ok.status, 302);
  const location = new URL(ok.headers.get('location')!);
  assert.is(`${location.origin}${location.pathname}`, REDIRECT);
  assert.is(location.searchParams.get('state'), 'st-42');
  const code = location.searchParams.get('code')!;
  assert.ok(code);

  const exchange = (values: Record<string, string>) =>
    h.api(null, 'POST', '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: REDIRECT,
      code,
      ...values,
    });
  const badVerifier = await exchange({ code_verifier: 'x'.repeat(43) });
  assert.is(badVerifier.status, 400);
  assert.is(badVerifier.body.error, 'invalid_grant');

  const ok2 = await authorize(app, { code_challenge: challenge, code_challenge_method: 'S256' });
  const code2 = new URL(ok2.headers.get('location')!).searchParams.get('code')!;
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: REDIRECT,
    code: code2,
    code_verifier: verifier,
  });
  assert.is(token.status, 200, JSON.stringify(token.body));
  assert.is(token.body.token_type, 'Bearer');
  assert.is(token.body.scope, 'read write');
  assert.type(token.body.created_at, 'number');
  const me = await h.api(token.body.access_token, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(me.body.username, 'member');
  const again = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: REDIRECT,
    code: code2,
    code_verifier: verifier,
  });
  assert.is(again.body.error, 'invalid_grant', 'a code is used once');
});

test('only S256 is accepted as code challenge method', async () => {
  const app = await registerApp();
  const res = await fetch(
    `${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&code_challenge=abc&code_challenge_method=plain`,
  );
  assert.is(res.status, 400);
});

test('out-of-band redirect shows the code on a page; deny redirects with access_denied and state', async () => {
  const oob = await registerApp('read', 'urn:ietf:wg:oauth:2.0:oob');
  const page = await fetch(
    `${h.url}/oauth/authorize`,
    form({
      response_type: 'code',
      client_id: oob.client_id,
      redirect_uri: oob.redirect_uri,
      scope: 'read',
      login: 'member@example.test',
      password: 'pw-member-123',
      decision: 'allow',
    }),
  );
  assert.is(page.status, 200);
  const code = /id="code" class="code" type="text" readonly value="([^"]+)"/.exec(await page.text())![1];
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: oob.client_id,
    client_secret: oob.client_secret,
    redirect_uri: oob.redirect_uri,
    code,
  });
  assert.is(token.status, 200);

  const app = await registerApp();
  const denied = await authorize(app, { state: 'no', decision: 'deny' });
  assert.is(denied.status, 302);
  const location = new URL(denied.headers.get('location')!);
  assert.is(location.searchParams.get('error'), 'access_denied');
  assert.is(location.searchParams.get('state'), 'no');
});

test('client_credentials gives an app token; a wrong secret is 401 invalid_client; basic auth works', async () => {
  const app = await registerApp();
  const bad = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.client_id,
    client_secret: 'nope',
  });
  assert.is(bad.status, 401);
  assert.is(bad.body.error, 'invalid_client');
  const unsupported = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'password',
    client_id: app.client_id,
    client_secret: app.client_secret,
  });
  assert.is(unsupported.body.error, 'unsupported_grant_type');
  const basic = await fetch(`${h.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=read',
  });
  const token = (await basic.json()) as any;
  assert.is(token.scope, 'read');
  const verified = await h.api(token.access_token, 'GET', '/api/v1/apps/verify_credentials');
  assert.is(verified.status, 200);
  assert.is(verified.body.name, 'Test app');
  assert.is(verified.body.client_secret, undefined);
  assert.is((await h.api('garbage', 'GET', '/api/v1/apps/verify_credentials')).status, 401);
  const malformed = await fetch(`${h.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('%:x').toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  assert.is(malformed.status, 401, 'a malformed escape in Basic credentials is a wrong client, not a 500');
});

test('tokens are stored hashed', async () => {
  const app = await registerApp();
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
  });
  const rows = await h.admin.social.ctx.db('oauth_tokens').select('token_hash');
  assert.ok(rows.length > 0);
  assert.not.ok(rows.some((row: { token_hash: string }) => row.token_hash.includes(token.body.access_token)));
});

test('revoke: idempotent for the owning app, 403 unauthorized_client for another app', async () => {
  const app = await registerApp();
  const other = await registerApp();
  const { body: token } = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
  });
  const refused = await h.api(null, 'POST', '/oauth/revoke', {
    client_id: other.client_id,
    client_secret: other.client_secret,
    token: token.access_token,
  });
  assert.is(refused.status, 403);
  assert.is(refused.body.error, 'unauthorized_client');
  const revoked = await h.api(null, 'POST', '/oauth/revoke', {
    client_id: app.client_id,
    client_secret: app.client_secret,
    token: token.access_token,
  });
  assert.is(revoked.status, 200);
  assert.equal(revoked.body, {});
  assert.is((await h.api(token.access_token, 'GET', '/api/v1/apps/verify_credentials')).status, 401);
  assert.is(
    (
      await h.api(null, 'POST', '/oauth/revoke', {
        client_id: app.client_id,
        client_secret: app.client_secret,
        token: token.access_token,
      })
    ).status,
    200,
  );
});

test('a token in use is refused at once once revoked, or once its account is disabled from another process', async () => {
  const app = await registerApp();
  const { body: token } = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
  });
  const verify = async (bearer: string) => (await h.api(bearer, 'GET', '/api/v1/apps/verify_credentials')).status;
  // Used twice in a row with nothing written between: the second is answered from what the first resolved.
  assert.is(await verify(token.access_token), 200);
  assert.is(await verify(token.access_token), 200);
  await h.api(null, 'POST', '/oauth/revoke', {
    client_id: app.client_id,
    client_secret: app.client_secret,
    token: token.access_token,
  });
  assert.is(await verify(token.access_token), 401, 'the revoked token, at the very next request');

  const user = await h.account('soon-disabled');
  const me = async () => (await h.api(user.token, 'GET', '/api/v1/accounts/verify_credentials')).status;
  assert.is(await me(), 200);
  assert.is(await me(), 200);
  // The admin tool's process writes it: nothing in the daemon is told (but PostgreSQL's announcement).
  await h.admin.social.ctx.db('users').where({ account_id: user.id }).update({ disabled: true });
  assert.is(await h.heard(me, (status) => status !== 200), 403, 'the disabled account, at the very next request');
});

test('the daily vacuum removes revoked tokens, spent codes and, after a day, apps nothing refers to', async () => {
  const db = h.admin.social.ctx.db;
  const oauth = h.admin.social.services.oauth.repo;
  const appToken = async (app: any) =>
    (
      await h.api(null, 'POST', '/oauth/token', {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
      })
    ).body.access_token as string;
  const exists = async (app: any) => (await db('oauth_apps').where({ id: app.id }).first()) !== undefined;

  const unused = await registerApp();
  const inUse = await registerApp();
  const inUseToken = await appToken(inUse);
  const loggedOut = await registerApp();
  const loggedOutToken = await appToken(loggedOut);
  assert.is(
    (
      await h.api(null, 'POST', '/oauth/revoke', {
        client_id: loggedOut.client_id,
        client_secret: loggedOut.client_secret,
        token: loggedOutToken,
      })
    ).status,
    200,
  );
  const signUps = await registerApp();
  const { id: signedUp } = await h.account('signedup');
  await db('users').where({ account_id: signedUp }).update({ created_by_app_id: signUps.id });
  const pending = await registerApp();
  const code = await authorize(pending, {});
  assert.is(code.status, 302);
  const scheduler = await registerApp();
  await db('scheduled_statuses').insert({
    account_id: signedUp,
    scheduled_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    params: JSON.stringify({ text: 'later', application_id: scheduler.id }),
    created_at: new Date().toISOString(),
  });

  // Today: the revoked token goes, every app stays (none is a day old).
  const today = await oauth.vacuum(new Date(), 24 * 3600 * 1000);
  assert.ok(today.tokens >= 1);
  assert.is(today.apps, 0);
  assert.is(await db('oauth_tokens').whereNotNull('revoked_at').first(), undefined);
  assert.ok((await exists(unused)) && (await exists(loggedOut)));

  // Two days on: the code has expired too; apps with nothing left go, the others stay.
  const later = await oauth.vacuum(new Date(Date.now() + 2 * 24 * 3600 * 1000), 24 * 3600 * 1000);
  assert.ok(later.codes >= 1);
  assert.not.ok(await exists(unused), 'never used');
  assert.not.ok(await exists(loggedOut), 'its only token was revoked');
  assert.not.ok(await exists(pending), 'its only code expired unused');
  assert.ok(await exists(inUse), 'holds a live token');
  assert.ok(await exists(signUps), 'an account signed up through it');
  assert.ok(await exists(scheduler), 'a post scheduled through it will name it');
  assert.is((await h.api(inUseToken, 'GET', '/api/v1/apps/verify_credentials')).status, 200);
  const gone = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: unused.client_id,
    client_secret: unused.client_secret,
  });
  assert.is(gone.status, 401);
  assert.is(gone.body.error, 'invalid_client');
});

test('admin scopes are granted only to the owner', async () => {
  const app = await registerApp('read admin:read');
  const member = await authorize(app, { scope: 'admin:read', state: 's1' });
  assert.is(member.status, 302);
  const refused = new URL(member.headers.get('location')!);
  assert.is(refused.searchParams.get('error'), 'access_denied');
  assert.match(refused.searchParams.get('error_description')!, /Only the box owner/);
  assert.is(refused.searchParams.get('state'), 's1');
  assert.is(refused.searchParams.get('code'), null);
  const owner = await authorize(app, { scope: 'admin:read' }, 'owner', 'pw-owner-123');
  assert.is(owner.status, 302);
});

test('GET /.well-known/oauth-authorization-server describes the endpoints', async () => {
  const { status, body } = await h.api(null, 'GET', '/.well-known/oauth-authorization-server');
  assert.is(status, 200);
  assert.is(body.token_endpoint, `${h.url}/oauth/token`);
  assert.is(body.authorization_endpoint, `${h.url}/oauth/authorize`);
  assert.is(body.revocation_endpoint, `${h.url}/oauth/revoke`);
  assert.equal(body.code_challenge_methods_supported, ['S256']);
  assert.equal(body.grant_types_supported, ['authorization_code', 'client_credentials']);
  assert.ok(body.scopes_supported.includes('read:notifications'));
});

test.run();
