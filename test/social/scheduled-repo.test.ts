/** The scheduled statuses repository on both engines: one account's own, paged; counts per day; due ones; rescheduling and removing. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { ScheduledRepo } from '../../daemon/social/scheduled/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const CREATED = '2026-01-01T00:00:00.000Z';

for (const engine of ENGINES) {
  const test = suite(`scheduled repo (${engine})`);

  let store: RepoContext;
  let repo: ScheduledRepo;
  let alice: string;
  let bob: string;
  const ids: string[] = [];

  const schedule = (accountId: string, at: string, status: string) =>
    store.ctx.db.transaction((trx) =>
      repo.insert(trx, { account_id: accountId, scheduled_at: at, params: JSON.stringify({ text: status }) }, CREATED),
    );

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new ScheduledRepo(store.ctx);
    alice = await store.account('alice');
    bob = await store.account('bob');
    ids.push(await schedule(alice, '2026-02-01T10:00:00.000Z', 'one'));
    ids.push(await schedule(alice, '2026-02-01T23:00:00.000Z', 'two'));
    ids.push(await schedule(alice, '2026-02-03T08:00:00.000Z', 'three'));
    ids.push(await schedule(bob, '2026-02-01T09:00:00.000Z', 'bobs'));
  });
  test.after(() => store.close());

  test('one is found only by its owner, its parameters as they were stored', async () => {
    const one = (await repo.one(alice, ids[0]))!;
    assert.equal([one.id, one.account_id, one.scheduled_at], [ids[0], alice, '2026-02-01T10:00:00.000Z']);
    assert.equal(JSON.parse(one.params), { text: 'one' });
    assert.is(await repo.one(bob, ids[0]), undefined);
  });

  test('the list is the owner’s, newest first, paged by id', async () => {
    assert.equal(
      (await repo.page(alice, { limit: 10 })).map((row) => row.id),
      [ids[2], ids[1], ids[0]],
    );
    assert.equal(
      (await repo.page(alice, { limit: 1, maxId: ids[2] })).map((row) => row.id),
      [ids[1]],
    );
  });

  test('counts: all of an account, and those on one UTC day', async () => {
    assert.equal(await repo.counts(alice, '2026-02-01T00:00:00.000Z'), { total: 3, day: 2 });
    assert.equal(await repo.counts(alice, '2026-02-02T12:00:00.000Z'), { total: 3, day: 0 });
    assert.equal(await repo.counts(await store.account('nobody'), '2026-02-01T00:00:00.000Z'), { total: 0, day: 0 });
  });

  test('due: those whose time has come, oldest first, and whether their account may still post', async () => {
    await store.ctx.db('users').where({ account_id: bob }).update({ disabled: true });
    const due = await repo.due('2026-02-01T23:00:00.000Z');
    assert.equal(
      due.map((row) => [row.id, row.may_post]),
      [
        [ids[3], 0],
        [ids[0], 1],
        [ids[1], 1],
      ],
    );
    await store.ctx.db('users').where({ account_id: bob }).update({ disabled: false });
    await store.ctx.db('accounts').where({ id: alice }).update({ suspended_at: CREATED });
    assert.equal(
      (await repo.due('2026-02-01T12:00:00.000Z')).map((row) => row.may_post),
      [1, 0],
    );
    await store.ctx.db('accounts').where({ id: alice }).update({ suspended_at: null });
  });

  test('rescheduling moves only the owner’s; removing says whether it was there', async () => {
    await repo.reschedule(bob, ids[2], '2026-03-01T00:00:00.000Z');
    assert.is((await repo.one(alice, ids[2]))!.scheduled_at, '2026-02-03T08:00:00.000Z');
    await repo.reschedule(alice, ids[2], '2026-03-01T00:00:00.000Z');
    assert.is((await repo.one(alice, ids[2]))!.scheduled_at, '2026-03-01T00:00:00.000Z');
    assert.is(await repo.remove(bob, ids[2]), false);
    assert.is(await repo.remove(alice, ids[2]), true);
    assert.is(await repo.remove(alice, ids[2]), false);
  });

  test.run();
}
