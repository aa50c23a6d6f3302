/**
 * Admin accounts v1/v2 with their filters, the owner's moderation actions, and the reports the owner
 * reviews and resolves, behind admin scopes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let owner: TestAccount;
let alice: TestAccount;
let bob: TestAccount;
let adminToken: string;
let pendingId: string;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_REGISTRATIONS: 'approval' });
  owner = await h.account('owner', { owner: true });
  alice = await h.account('alice');
  bob = await h.account('bob');
  adminToken = await h.token('owner', 'admin:read:accounts admin:write:accounts');
  const app = (
    await h.api(null, 'POST', '/api/v1/apps', {
      client_name: 'a',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write',
    })
  ).body;
  const appToken = (
    await h.api(null, 'POST', '/oauth/token', {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: 'read write',
    })
  ).body.access_token;
  const signup = await h.api(appToken, 'POST', '/api/v1/accounts', {
    username: 'pendy',
    email: 'pendy@example.test',
    password: 'a long password 123',
    agreement: true,
    locale: 'en',
    reason: 'I live here',
  });
  assert.is(signup.status, 200, JSON.stringify(signup.body));
  const now = new Date().toISOString();
  await (h.admin as any).db.raw(
    `INSERT INTO accounts (id, username, domain, uri, created_at, updated_at) VALUES ('77001', 'remy', 'remote.example', 'https://remote.example/u/remy', ?, ?)`,
    [now, now],
  );
  pendingId = (await h.api(adminToken, 'GET', '/api/v2/admin/accounts?status=pending')).body[0].id;
});
test.after(async () => {
  await h?.stop();
});

const names = (body: any[]) => body.map((a) => a.username).sort();

test('v1 and v2 list with origin/local/remote, status and username filters', async () => {
  const all = await h.api(adminToken, 'GET', '/api/v1/admin/accounts');
  assert.is(all.status, 200);
  assert.equal(names(all.body), ['alice', 'bob', 'owner', 'pendy', 'remy']);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v1/admin/accounts?remote=true')).body), ['remy']);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?origin=local&status=pending')).body), [
    'pendy',
  ]);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v1/admin/accounts?pending=true')).body), ['pendy']);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?username=al')).body), ['alice']);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?by_domain=REMOTE.example')).body), [
    'remy',
  ]);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?permissions=staff')).body), ['owner']);
  const pendy = (await h.api(adminToken, 'GET', `/api/v1/admin/accounts/${pendingId}`)).body;
  assert.is(pendy.approved, false);
  assert.is(pendy.invite_request, 'I live here');
  assert.is(pendy.email, 'pendy@example.test');
  assert.is((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?status=bogus')).status, 400);
  const paged = await h.api(adminToken, 'GET', '/api/v2/admin/accounts?limit=2');
  assert.is(paged.body.length, 2);
  assert.match(paged.headers.get('link')!, /rel="next"/);
});

test('approve a pending registration; silence and suspend show in v2 status filters and undo', async () => {
  const approved = await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${pendingId}/approve`);
  assert.is(approved.status, 200);
  assert.is(approved.body.approved, true);
  assert.is(
    (await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${pendingId}/approve`)).status,
    403,
    'not pending any more',
  );
  assert.is(
    (await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${alice.id}/action`, { type: 'silence' })).status,
    200,
  );
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?status=silenced')).body), ['alice']);
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v1/admin/accounts?silenced=true')).body), ['alice']);
  assert.is(
    (await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${bob.id}/action`, { type: 'suspend' })).status,
    200,
  );
  assert.equal(names((await h.api(adminToken, 'GET', '/api/v2/admin/accounts?status=suspended')).body), ['bob']);
  assert.is(
    (await h.api(bob.token, 'GET', '/api/v1/accounts/verify_credentials')).status,
    403,
    "a suspended account's token stops working",
  );
  assert.is((await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${bob.id}/unsuspend`)).body.suspended, false);
  assert.is((await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${alice.id}/unsilence`)).body.silenced, false);
  assert.is(
    (await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${alice.id}/action`, { type: 'explode' })).status,
    422,
  );
  assert.is(
    (await h.api(adminToken, 'POST', `/api/v1/admin/accounts/${owner.id}/action`, { type: 'suspend' })).status,
    403,
  );
});

test("admin routes are the owner's, with admin scopes", async () => {
  assert.is((await h.api(alice.token, 'GET', '/api/v1/admin/accounts')).status, 403);
  assert.is((await h.api(await h.token('owner', 'read write'), 'GET', '/api/v2/admin/accounts')).status, 403);
  assert.is(
    (
      await h.api(await h.token('owner', 'admin:read:accounts'), 'POST', `/api/v1/admin/accounts/${alice.id}/action`, {
        type: 'silence',
      })
    ).status,
    403,
  );
  assert.is((await h.api(null, 'GET', '/api/v1/admin/accounts')).status, 401);
});

test('admin reports: the owner lists open reports with reporter, target, cited posts and rules, resolves and reopens them', async () => {
  const carla = await h.account('carla');
  const dario = await h.account('dario');
  const post = (await h.api(dario.token, 'POST', '/api/v1/statuses', { status: 'buy cheap watches' })).body;
  const made = await h.api(carla.token, 'POST', '/api/v1/reports', {
    account_id: dario.id,
    status_ids: [post.id],
    comment: 'spam',
    category: 'spam',
  });
  assert.is(made.status, 200);
  const reviewer = await h.token('owner', 'admin:read:reports admin:write:reports');
  const open = await h.api(reviewer, 'GET', `/api/v1/admin/reports?target_account_id=${dario.id}`);
  assert.is(open.status, 200);
  assert.is(open.body.length, 1);
  const [report] = open.body;
  assert.is(report.id, made.body.id);
  assert.is(report.action_taken, false);
  assert.is(report.comment, 'spam');
  assert.is(report.category, 'spam');
  assert.is(report.account.id, carla.id);
  assert.is(report.account.account.acct, 'carla');
  assert.is(report.target_account.username, 'dario');
  assert.equal(
    report.statuses.map((s: { id: string }) => s.id),
    [post.id],
  );
  assert.equal(report.rules, []);

  const resolved = await h.api(reviewer, 'POST', `/api/v1/admin/reports/${report.id}/resolve`);
  assert.is(resolved.body.action_taken, true);
  assert.type(resolved.body.action_taken_at, 'string');
  const stillOpen = await h.api(reviewer, 'GET', `/api/v1/admin/reports?target_account_id=${dario.id}`);
  assert.equal(stillOpen.body, [], 'a resolved report leaves the open list');
  const done = await h.api(reviewer, 'GET', `/api/v1/admin/reports?resolved=true&account_id=${carla.id}`);
  assert.equal(
    done.body.map((r: { id: string }) => r.id),
    [report.id],
  );
  const reopened = await h.api(reviewer, 'POST', `/api/v1/admin/reports/${report.id}/reopen`);
  assert.is(reopened.body.action_taken, false);
  assert.is((await h.api(reviewer, 'GET', `/api/v1/admin/reports/${report.id}`)).body.action_taken_at, null);

  assert.is((await h.api(carla.token, 'GET', '/api/v1/admin/reports')).status, 403, 'not for the reporter');
  assert.is((await h.api(adminToken, 'GET', '/api/v1/admin/reports')).status, 403, 'accounts scopes are not reports');
  assert.is((await h.api(reviewer, 'GET', '/api/v1/admin/reports/999999')).status, 404);
});

test.run();
