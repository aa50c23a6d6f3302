/** The reports repository on both engines: the one insert, the review reads, resolving, the checks' reads. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { ReportsRepo } from '../../daemon/social/reports/repo.js';
import { dialectOf } from '../../daemon/store/dialect.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

for (const engine of ENGINES) {
  const test = suite(`reports repo (${engine})`);

  let store: RepoContext;
  let repo: ReportsRepo;
  let reporter: string;
  let target: string;
  let remote: string;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new ReportsRepo(store.ctx);
    reporter = await store.account('reporter');
    target = await store.account('target');
    remote = await store.account('faraway', { domain: 'peer.example' });
  });
  test.after(() => store.close());

  const report = (statusIds: string[], extra: Partial<Parameters<ReportsRepo['insert']>[1]> = {}) => ({
    accountId: reporter,
    targetAccountId: target,
    comment: 'spam everywhere',
    category: 'spam',
    ruleIds: [],
    forwarded: false,
    forwardToDomains: [],
    statusIds,
    createdAt: '2026-02-01T00:00:00.000Z',
    ...extra,
  });

  test('the reported account is found with its domain, as text ids above 2^53', async () => {
    assert.ok(BigInt(target) > 2n ** 53n);
    assert.equal(await repo.account(target), { id: target, domain: null });
    assert.equal(await repo.account(remote), { id: remote, domain: 'peer.example' });
    assert.is(await repo.account('1'), undefined);
  });

  test('a report is stored with each cited status once, and read back as written', async () => {
    const first = await store.status(target);
    const second = await store.status(target);
    const id = await store.ctx.db.transaction((trx) =>
      repo.insert(trx, report([first, second, first], { forwarded: true, forwardToDomains: ['peer.example'] })),
    );
    const row = await repo.row(id);
    assert.equal(row, {
      id,
      target_account_id: target,
      comment: 'spam everywhere',
      category: 'spam',
      rule_ids: '[]',
      forwarded: 1,
      action_taken_at: null,
      created_at: '2026-02-01T00:00:00.000Z',
    });
    const review = (await repo.review(id))!;
    assert.is(review.account_id, reporter);
    assert.equal((JSON.parse(review.status_ids_json) as string[]).sort(), [first, second].sort());
    const stored = await store.ctx.db('reports').where({ id }).first();
    assert.equal(JSON.parse(stored.forward_to_domains as string), ['peer.example']);
  });

  test('a report whose status cannot be stored is not stored at all', async () => {
    const before = Number((await store.ctx.db('reports').count({ n: '*' }))[0].n);
    await store.ctx.db
      .transaction((trx) => repo.insert(trx, report(['12345'])))
      .then(
        () => assert.unreachable('a status that does not exist must be refused'),
        (error: Error) => assert.ok(dialectOf(store.ctx.db).isForeignKeyViolation(error), error.message),
      );
    assert.is(Number((await store.ctx.db('reports').count({ n: '*' }))[0].n), before);
  });

  test('the list filters on resolved, reporter and target; resolving moves a report between lists', async () => {
    const other = await store.account('other');
    const mine = await store.ctx.db.transaction((trx) => repo.insert(trx, report([], { targetAccountId: other })));
    const open = (await repo.list({ resolved: false, targetAccountId: other }, { limit: 10 })).map((r) => r.id);
    assert.equal(open, [mine]);
    assert.equal(await repo.list({ resolved: true, targetAccountId: other }, { limit: 10 }), []);
    assert.equal(await repo.list({ resolved: false, accountId: other }, { limit: 10 }), []);
    await repo.setActionTakenAt(mine, '2026-02-02T00:00:00.000Z');
    assert.equal(await repo.list({ resolved: false, targetAccountId: other }, { limit: 10 }), []);
    const resolved = await repo.list({ resolved: true, targetAccountId: other }, { limit: 10 });
    assert.equal(
      resolved.map((r) => [r.id, r.action_taken_at]),
      [[mine, '2026-02-02T00:00:00.000Z']],
    );
    await repo.setActionTakenAt(mine, null);
    assert.is((await repo.review(mine))!.action_taken_at, null);
  });

  test('the list is newest first and pages by id', async () => {
    const paged = await store.account('paged');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(await store.ctx.db.transaction((trx) => repo.insert(trx, report([], { targetAccountId: paged }))));
    const all = (await repo.list({ resolved: false, targetAccountId: paged }, { limit: 10 })).map((r) => r.id);
    assert.equal(all, [...ids].reverse());
    const older = await repo.list({ resolved: false, targetAccountId: paged }, { limit: 10, maxId: ids[2] });
    assert.equal(
      older.map((r) => r.id),
      [ids[1], ids[0]],
    );
  });

  test("the cited statuses must be the target's and visible to the reporter; deleted ones count", async () => {
    const shown = await store.status(target);
    const deleted = await store.status(target, { deletedAt: '2026-01-02T00:00:00.000Z' });
    const followersOnly = await store.status(target, { visibility: 'private' });
    const someoneElses = await store.status(reporter);
    const found = await repo.visibleStatusesOf(target, [shown, deleted, followersOnly, someoneElses], reporter);
    assert.equal(found.sort(), [shown, deleted].sort());
  });

  test('server rules: all of them, and which of some ids exist', async () => {
    const rule = async (row: { text: string; hint?: string }) =>
      (await store.ctx.db('server_rules').insert(row).returning<Array<{ id: number }>>('id'))[0].id;
    const spam = await rule({ text: 'No spam', hint: 'none of it' });
    const rude = await rule({ text: 'Be kind' });
    assert.equal(await repo.serverRules(), [
      { id: spam, text: 'No spam', hint: 'none of it' },
      { id: rude, text: 'Be kind', hint: '' },
    ]);
    assert.equal((await repo.existingRules([rude, 999, spam])).sort(), [spam, rude].sort());
  });

  test.run();
}
