/** The invites repository on a real SQLite file: making, listing, finding, ending invites; who came in by one. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { InvitesRepo } from '../../daemon/social/invites/repo.js';
import { openRepoContext, type RepoContext } from './repo-context.js';
import { ENGINES } from '../helpers/engines.js';

for (const engine of ENGINES) {
  const test = suite(`invites repo (${engine})`);

  let store: RepoContext;
  let repo: InvitesRepo;
  let owner: string;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new InvitesRepo(store.ctx);
    owner = await store.account('owner');
  });
  test.after(() => store.close());

  test('an invite is stored unused and found by id and by code; the list is newest first', async () => {
    const first = await repo.insert({
      code: 'FIRSTcode1',
      accountId: owner,
      maxUses: 5,
      expiresAt: '2026-03-01T00:00:00.000Z',
      createdAt: '2026-02-01T00:00:00.000Z',
    });
    const second = await repo.insert({
      code: 'SECONDcode',
      accountId: owner,
      maxUses: null,
      expiresAt: null,
      createdAt: '2026-02-02T00:00:00.000Z',
    });
    assert.equal(await repo.byId(first), {
      id: first,
      code: 'FIRSTcode1',
      max_uses: 5,
      uses: 0,
      expires_at: '2026-03-01T00:00:00.000Z',
      created_at: '2026-02-01T00:00:00.000Z',
    });
    assert.is((await repo.byCode('SECONDcode'))!.id, second);
    assert.is(await repo.byCode('secondcode'), undefined);
    assert.equal(
      (await repo.list()).map((invite) => invite.id),
      [second, first],
    );
  });

  test('ending an invite sets its expiry; an unknown invite is said to be missing', async () => {
    const id = (await repo.byCode('SECONDcode'))!.id;
    assert.is(await repo.setExpiresAt(id, '2026-02-03T00:00:00.000Z'), true);
    assert.is((await repo.byId(id))!.expires_at, '2026-02-03T00:00:00.000Z');
    assert.is(await repo.setExpiresAt('999999', '2026-02-03T00:00:00.000Z'), false);
  });

  test('the accounts that came in by an invite, newest first, with the code they used', async () => {
    const invite = (await repo.byCode('FIRSTcode1'))!;
    const early = await store.account('early');
    const late = await store.account('late');
    await store.account('uninvited');
    await store.ctx.db('users').where({ account_id: early }).update({ invite_id: invite.id, created_at: '2026-02-05' });
    await store.ctx.db('users').where({ account_id: late }).update({ invite_id: invite.id, created_at: '2026-02-06' });
    assert.equal(await repo.invitedAccounts(), [
      { id: late, username: 'late', display_name: '', created_at: '2026-02-06', invite_code: 'FIRSTcode1' },
      { id: early, username: 'early', display_name: '', created_at: '2026-02-05', invite_code: 'FIRSTcode1' },
    ]);
  });

  test.run();
}
