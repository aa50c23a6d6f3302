/** The Web Push repository on a real SQLite file: one subscription per token, its changes, what delivery reads. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { PushRepo, type PushInsert } from '../../daemon/social/push/repo.js';
import { openRepoContext, type RepoContext } from './repo-context.js';
import { ENGINES } from '../helpers/engines.js';

for (const engine of ENGINES) {
  const test = suite(`push repo (${engine})`);

  let store: RepoContext;
  let repo: PushRepo;
  let alice: string;
  let bob: string;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new PushRepo(store.ctx);
    alice = await store.account('alice');
    bob = await store.account('bob');
  });
  test.after(() => store.close());

  const subscription = (tokenId: string, extra: Partial<PushInsert> = {}): PushInsert => ({
    tokenId,
    accountId: alice,
    endpoint: 'https://push.example/1',
    p256dh: 'key',
    auth: 'auth',
    alerts: { mention: true, follow: false },
    policy: 'all',
    standard: true,
    createdAt: '2026-02-01T00:00:00.000Z',
    ...extra,
  });

  test('a token holds one subscription: a second replaces the first', async () => {
    const token = await store.token(alice);
    await repo.replace(subscription(token));
    const first = (await repo.byToken(token))!;
    // JSON as JSON: PostgreSQL keeps it as jsonb, which orders keys its own way.
    assert.equal(
      { ...first, alerts: JSON.parse(first.alerts) as unknown },
      {
        id: first.id,
        token_id: token,
        account_id: alice,
        endpoint: 'https://push.example/1',
        key_p256dh: 'key',
        key_auth: 'auth',
        alerts: { mention: true, follow: false },
        policy: 'all',
        standard: 1,
      },
    );
    await repo.replace(subscription(token, { endpoint: 'https://push.example/2', standard: false }));
    const second = (await repo.byToken(token))!;
    assert.is(second.endpoint, 'https://push.example/2');
    assert.is(second.standard, 0);
    assert.equal(
      (await repo.ofAccount(alice)).filter((row) => row.token_id === token).map((row) => row.endpoint),
      ['https://push.example/2'],
    );
  });

  test('alerts and policy change in place; removal by token or by id ends only that subscription', async () => {
    const [one, two] = [await store.token(bob), await store.token(bob)];
    await repo.replace(subscription(one, { accountId: bob }));
    await repo.replace(subscription(two, { accountId: bob }));
    const row = (await repo.byToken(one))!;
    await repo.setAlertsAndPolicy(row.id, { mention: false }, 'followed');
    const changed = (await repo.byToken(one))!;
    assert.equal(
      [changed.id, JSON.parse(changed.alerts) as unknown, changed.policy],
      [row.id, { mention: false }, 'followed'],
    );
    await repo.removeByToken(one);
    assert.is(await repo.byToken(one), undefined);
    await repo.remove((await repo.byToken(two))!.id);
    assert.equal(await repo.ofAccount(bob), []);
  });

  test('delivery reads the sender and who follows whom', async () => {
    await store.ctx.db('accounts').where({ id: alice }).update({ display_name: 'Alice A.' });
    assert.equal(await repo.sender(alice), { username: 'alice', display_name: 'Alice A.', avatar: null });
    assert.is(await repo.sender('1'), undefined);
    await store.ctx.db('follows').insert({ account_id: alice, target_account_id: bob, created_at: '2026-01-01' });
    assert.is(await repo.follows(alice, bob), true);
    assert.is(await repo.follows(bob, alice), false);
  });

  test.run();
}
