/** POST /api/v1/reports: statuses (soft-deleted ones included), category, rules, forwarding, rate limit headers. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;
let carol: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  [alice, bob, carol] = [await h.account('alice'), await h.account('bob'), await h.account('carol')];
  await (h.admin as any).db.raw(`INSERT INTO server_rules (text) VALUES ('No spam')`);
});
test.after(async () => {
  await h?.stop();
});

test("a report cites the target's statuses, a deleted one too, and keeps the category and comment", async () => {
  const kept = (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'buy my stuff' })).body.id;
  const gone = (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'buy it now' })).body.id;
  await h.api(bob.token, 'DELETE', `/api/v1/statuses/${gone}`);
  const res = await h.api(alice.token, 'POST', '/api/v1/reports', {
    account_id: bob.id,
    status_ids: [kept, gone],
    comment: 'spammy',
    category: 'spam',
    forward: true,
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.category, 'spam');
  assert.is(res.body.comment, 'spammy');
  assert.equal(res.body.status_ids, [kept, gone]);
  assert.is(res.body.forwarded, false, 'a local account is not forwarded anywhere');
  assert.is(res.body.target_account.id, bob.id);
  assert.is(res.body.action_taken, false);
  assert.is(res.headers.get('x-ratelimit-limit'), '400');
  const stored = await (h.admin as any).db.raw(`SELECT count(*) AS n FROM report_statuses`);
  assert.is(stored[0].n, 2);
  const purge = await (h.admin as any).db.raw(`DELETE FROM statuses WHERE id = ?`, [gone]).then(
    () => 'deleted',
    (e: Error) => e.message,
  );
  assert.match(purge, /FOREIGN KEY/, 'a reported status cannot be purged while its report exists');
});

test("violation needs known rule ids; unknown categories and others' statuses are refused; nothing stored", async () => {
  const ok = await h.api(alice.token, 'POST', '/api/v1/reports', {
    account_id: bob.id,
    category: 'violation',
    rule_ids: ['1'],
  });
  assert.is(ok.status, 200);
  assert.equal(ok.body.rule_ids, ['1']);
  const before = (await (h.admin as any).db.raw(`SELECT count(*) AS n FROM reports`))[0].n;
  assert.is(
    (
      await h.api(alice.token, 'POST', '/api/v1/reports', {
        account_id: bob.id,
        category: 'violation',
        rule_ids: ['42'],
      })
    ).status,
    422,
  );
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: bob.id, category: 'rude' })).status,
    422,
  );
  const carols = (await h.api(carol.token, 'POST', '/api/v1/statuses', { status: 'carol' })).body.id;
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: bob.id, status_ids: [carols] })).status,
    404,
  );
  assert.is((await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: '123456' })).status, 404);
  assert.is((await h.api(alice.token, 'POST', '/api/v1/reports', {})).status, 422);
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: bob.id, comment: 'x'.repeat(1001) })).status,
    422,
  );
  assert.is((await (h.admin as any).db.raw(`SELECT count(*) AS n FROM reports`))[0].n, before);
});

test('reports need write:reports', async () => {
  assert.is(
    (await h.api(await h.token('alice', 'read write:statuses'), 'POST', '/api/v1/reports', { account_id: bob.id }))
      .status,
    403,
  );
});

test.run();
