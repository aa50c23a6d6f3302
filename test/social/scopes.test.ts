/**
 * The scope walk: every social route with a token holding every scope except the ones the route
 * accepts (and their parents) is refused with 403; with one accepted scope it gets past the check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KNOWN_SCOPES } from '../../daemon/social/oauth/scopes.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';
import { ROUTES } from '../helpers/social-routes.js';

let h: SocialHarness;
test.before(async () => {
  h = await startSocialDaemon();
  await h.account('walker', { owner: true });
});
test.after(async () => {
  await h?.stop();
});

/** One token per set of scopes: routes accepting the same scopes are walked with the same token. */
const tokens = new Map<string, Promise<string>>();
function tokenWith(scopes: string[]): Promise<string> {
  const key = scopes.join(' ');
  if (!tokens.has(key)) tokens.set(key, h.token('walker', key));
  return tokens.get(key)!;
}

test('every route refuses a token lacking its scope with 403 "This action is outside the authorized scopes"', async () => {
  for (const [method, path, accepted] of ROUTES) {
    const lacking = KNOWN_SCOPES.filter(
      (scope) => !accepted.includes(scope) && !accepted.some((a) => a.startsWith(`${scope}:`)),
    );
    const token = await tokenWith(lacking);
    const res = await h.api(token, method, path, method === 'GET' ? undefined : {});
    assert.is(res.status, 403, `${method} ${path} with ${lacking.length} other scopes`);
    assert.equal(res.body, { error: 'This action is outside the authorized scopes' }, `${method} ${path}`);
  }
});

test('every route lets each of its accepted scopes past the scope check', async () => {
  for (const [method, path, accepted] of ROUTES) {
    for (const scope of accepted) {
      const token = await tokenWith([scope]);
      const res = await h.api(token, method, path, method === 'GET' ? undefined : {});
      assert.not.equal(
        res.body?.error,
        'This action is outside the authorized scopes',
        `${method} ${path} with ${scope}`,
      );
      assert.not.equal(res.status, 401, `${method} ${path} with ${scope}`);
      assert.ok(res.status < 500, `${method} ${path} with ${scope}: ${res.status}`);
    }
  }
});

test('without a token, closed routes answer 401 and open routes do not', async () => {
  for (const [method, path, , open] of ROUTES) {
    const res = await h.api(null, method, path, method === 'GET' ? undefined : {});
    if (open) assert.not.equal(res.status, 401, `${method} ${path}`);
    else {
      assert.is(res.status, 401, `${method} ${path}`);
      assert.equal(res.body, { error: 'The access token is invalid' });
    }
  }
});

test('an app-only token on a user route is 422 "This method requires an authenticated user"', async () => {
  const app = await h.api(null, 'POST', '/api/v1/apps', {
    client_name: 'walker app',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes: 'read write',
  });
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.body.client_id,
    client_secret: app.body.client_secret,
    scope: 'read write',
  });
  const res = await h.api(token.body.access_token, 'GET', '/api/v1/notifications');
  assert.is(res.status, 422);
  assert.equal(res.body, { error: 'This method requires an authenticated user' });
});

test('closed registrations (the default) refuse sign-up with 403', async () => {
  const app = await h.api(null, 'POST', '/api/v1/apps', {
    client_name: 'signup',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes: 'write',
  });
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: app.body.client_id,
    client_secret: app.body.client_secret,
    scope: 'write',
  });
  const res = await h.api(token.body.access_token, 'POST', '/api/v1/accounts', {
    username: 'x',
    email: 'x@example.test',
    password: 'long enough pw',
    agreement: true,
  });
  assert.is(res.status, 403);
  assert.equal(res.body, { error: 'This action is not allowed' });
});

test.run();
