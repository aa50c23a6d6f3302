/**
 * The notification policy repository on both engines: the facts the filtering rules read, the
 * policy with its defaults, and requests (made by the filtered-mention triggers) listed, accepted
 * and dismissed.
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { NotificationPolicyRepo } from '../../daemon/social/notification-policy/repo.js';
import { DEFAULT_POLICY } from '../../daemon/social/notification-policy/rules.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';
const NOW = '2026-02-01T00:00:00.000Z';

for (const engine of ENGINES) {
  const test = suite(`notification policy repo (${engine})`);

  let store: RepoContext;
  let repo: NotificationPolicyRepo;
  let me: string;
  let friend: string;
  let stranger: string;
  let remote: string;

  const facts = async (sender: string, status: string | null = null) =>
    (await repo.facts(me, sender, status, NOW))!.facts;
  const mention = async (from: string) => {
    const status = await store.status(from, { visibility: 'direct' });
    await store.ctx.db('mentions').insert({ status_id: status, account_id: me });
    await store.ctx.db('notifications').insert({
      account_id: me,
      from_account_id: from,
      type: 'mention',
      status_id: status,
      filtered: true,
      created_at: AT,
    });
    return status;
  };

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new NotificationPolicyRepo(store.ctx);
    me = await store.account('me');
    friend = await store.account('friend');
    stranger = await store.account('stranger');
    remote = await store.account('remote', { domain: 'peer.example' });
    await store.ctx.db('follows').insert({ account_id: me, target_account_id: friend, created_at: AT });
    await store.ctx.db('follows').insert({ account_id: friend, target_account_id: me, created_at: AT });
  });
  test.after(() => store.close());

  test('the facts: following and followed since, refused by a block, a mute or a blocked domain, limited, permitted, staff', async () => {
    const known = await facts(friend);
    assert.equal(
      [known.self, known.following, known.followerSince, known.refused, known.permitted, known.senderStaff],
      [false, true, AT, false, false, false],
    );
    assert.is((await facts(me)).self, true);
    assert.is((await facts(stranger)).following, false);
    await store.ctx
      .db('mutes')
      .insert({ account_id: me, target_account_id: stranger, created_at: AT, expires_at: '2026-01-15T00:00:00.000Z' });
    assert.is((await facts(stranger)).refused, false, 'an expired mute refuses nothing');
    await store.ctx.db('mutes').where({ account_id: me }).update({ expires_at: null });
    assert.is((await facts(stranger)).refused, true);
    await store.ctx.db('mutes').where({ account_id: me }).update({ hide_notifications: false });
    assert.is((await facts(stranger)).refused, false, 'a mute that keeps notifications refuses none');
    await store.ctx.db('account_domain_blocks').insert({ account_id: me, domain: 'peer.example', created_at: AT });
    assert.is((await facts(remote)).refused, true);
    await store.ctx.db('accounts').where({ id: remote }).update({ silenced_at: AT });
    assert.is((await facts(remote)).senderLimited, true);
    await store.ctx.db('users').where({ account_id: stranger }).update({ role: 'moderator' });
    assert.is((await facts(stranger)).senderStaff, true);
    await store.ctx
      .db('notification_permissions')
      .insert({ account_id: me, from_account_id: stranger, created_at: AT });
    assert.is((await facts(stranger)).permitted, true);
    assert.is(await repo.facts(remote, me, null, NOW), null, 'a remote recipient has no facts');
  });

  test('an unsolicited private mention: direct, and not an answer to a direct status of mine that mentioned the sender', async () => {
    const unsolicited = await store.status(stranger, { visibility: 'direct' });
    assert.is((await facts(stranger, unsolicited)).unsolicitedPrivateMention, true);
    const mine = await store.status(me, { visibility: 'direct' });
    await store.ctx.db('mentions').insert({ status_id: mine, account_id: stranger });
    const answer = await store.status(stranger, { visibility: 'direct' });
    await store.ctx.db('statuses').where({ id: answer }).update({ in_reply_to_id: mine });
    assert.is((await facts(stranger, answer)).unsolicitedPrivateMention, false);
    assert.is((await facts(stranger, await store.status(stranger))).unsolicitedPrivateMention, false);
  });

  test('the policy: the defaults until one is saved, then what was saved', async () => {
    assert.equal(await repo.policy(me), DEFAULT_POLICY);
    const changed = { ...DEFAULT_POLICY, for_not_following: 'filter', for_limited_accounts: 'drop' } as const;
    await repo.savePolicy(me, changed, NOW);
    await repo.savePolicy(me, changed, NOW);
    assert.equal(await repo.policy(me), changed);
    assert.equal((await repo.facts(me, friend, null, NOW))!.policy, changed);
  });

  test('requests: counted, listed, accepted (the mentions shown) and dismissed (with the mentions, when asked)', async () => {
    const first = await store.account('first');
    const second = await store.account('second');
    await mention(first);
    await mention(first);
    await mention(second);
    assert.equal(await repo.summary(me), { pending_requests_count: 2, pending_notifications_count: 3 });
    const requests = await repo.requests(me, { limit: 10 });
    assert.equal(
      requests.map((r) => [r.from_account_id, r.notifications_count]),
      [
        [second, 1],
        [first, 2],
      ],
    );
    assert.equal((await repo.request(me, requests[1].id))!.notifications_count, 2);
    assert.is(await repo.request(first, requests[1].id), undefined);
    await repo.accept(me, requests[1], NOW);
    const shown = await store.ctx
      .db('notifications')
      .where({ account_id: me, from_account_id: first, filtered: false });
    assert.is(shown.length, 2);
    assert.is((await facts(first)).permitted, true);
    await repo.dismiss(me, requests[0], true);
    assert.is((await store.ctx.db('notifications').where({ from_account_id: second })).length, 0);
    assert.equal(await repo.summary(me), { pending_requests_count: 0, pending_notifications_count: 0 });
  });

  test.run();
}
