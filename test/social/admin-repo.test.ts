/** The admin repository's moderation writes on a real SQLite file, read back through its own reads. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { AdminRepo } from '../../daemon/social/admin/repo.js';
import { openRepoContext, type RepoContext } from './repo-context.js';
import { ENGINES } from '../helpers/engines.js';

for (const engine of ENGINES) {
  const test = suite(`admin repo (${engine})`);

  let store: RepoContext;
  let repo: AdminRepo;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new AdminRepo(store.ctx);
  });
  test.after(() => store.close());

  test('approving, silencing, suspending and disabling are written and undone', async () => {
    const id = await store.account('pending', { approved: false });
    assert.is((await repo.one(id))!.approved, 0);
    await repo.approve(id);
    await repo.setSilencedAt(id, '2026-02-01T00:00:00.000Z');
    await repo.setSuspendedAt(id, '2026-02-02T00:00:00.000Z');
    await repo.setDisabled(id, true);
    const acted = (await repo.one(id))!;
    assert.equal(
      [acted.approved, acted.silenced_at, acted.suspended_at, acted.disabled],
      [1, '2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z', 1],
    );
    await repo.setSilencedAt(id, null);
    await repo.setSuspendedAt(id, null);
    await repo.setDisabled(id, false);
    const undone = (await repo.one(id))!;
    assert.equal([undone.silenced_at, undone.suspended_at, undone.disabled], [null, null, 0]);
  });

  test('removing an account removes it and its user row', async () => {
    const id = await store.account('rejected', { approved: false });
    await repo.remove(id);
    assert.is(await repo.one(id), undefined);
    assert.is(await store.ctx.db('users').where({ account_id: id }).first(), undefined);
  });

  test.run();
}
