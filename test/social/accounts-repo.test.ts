/**
 * The accounts repo's SQL on both engines: lookups by id, name and login, search order, counters
 * that never go below zero, guarded field edits and the render cache's changed rows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountsRepo } from '../../daemon/social/accounts/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext } from './repo-context.js';

for (const engine of ENGINES)
  test(`accounts: lookups, search, counters, guarded edits and changed rows (${engine})`, async () => {
    const store = await openRepoContext(Date.now, engine);
    try {
      const { db } = store.ctx;
      const repo = new AccountsRepo(store.ctx);
      const alice = await store.account('Alice');
      const alicia = await store.account('alicia');
      const remote = await store.account('alice', { domain: 'Peer.Example' });
      await db('accounts').where({ id: alicia }).update({ display_name: 'Al', followers_count: 5, locked: true });
      await db('users').where({ account_id: alice }).update({ role: 'owner' });

      const found = (await repo.byId(alice))!;
      assert.is(found.id, alice, 'a snowflake id comes back exact, as text');
      assert.is(found.username, 'Alice');
      assert.is(Number((await repo.byId(alicia))!.locked), 1);
      assert.is((await repo.byUsername('ALICE', null))!.id, alice);
      assert.is((await repo.byUsername('alice', 'peer.example'))!.id, remote);
      assert.is(await repo.byUsername('alice', 'elsewhere.example'), undefined);

      // The exact name first, local before remote, then by followers.
      assert.equal(
        (await repo.search('alice', 10, 0)).map((row) => row.id),
        [alice, remote],
      );
      assert.equal(
        (await repo.search('al', 10, 0)).map((row) => row.id),
        [alicia, alice, remote],
      );
      assert.equal(
        (await repo.search('al', 1, 1)).map((row) => row.id),
        [alice],
      );
      assert.equal(await repo.search('a%', 10, 0), [], 'LIKE wildcards in the query are plain characters');

      assert.is((await repo.userByAccountId(alice))!.email, 'Alice@example.test');
      assert.is((await repo.userByLogin('alice@EXAMPLE.test'))!.account_id, alice);
      assert.is((await repo.userByLogin('ALICIA'))!.account_id, alicia);
      assert.ok(await repo.emailTaken('ALICE@example.test'));
      assert.not.ok(await repo.emailTaken('nobody@example.test'));
      assert.is(await repo.ownerAccountId(), alice);

      await db.transaction(async (trx) => {
        await repo.adjustCounter(trx, alice, 'statuses_count', 2);
        await repo.adjustCounter(trx, alice, 'statuses_count', -5);
        await repo.adjustCounter(trx, alice, 'followers_count', 3);
      });
      const counted = (await repo.byId(alice))!;
      assert.is(Number(counted.statuses_count), 0, 'a counter stops at zero');
      assert.is(Number(counted.followers_count), 3);

      const fields = (await repo.byId(alice))!.fields;
      const next = JSON.stringify([{ name: 'site', value: 'https://alice.example' }]);
      assert.ok(await repo.replaceFieldsIfUnchanged(alice, fields, next));
      assert.not.ok(await repo.replaceFieldsIfUnchanged(alice, fields, '[]'), 'a newer edit wins');
      assert.equal(JSON.parse((await repo.byId(alice))!.fields), [{ name: 'site', value: 'https://alice.example' }]);

      const [before] = await repo.changedRows({ [alice]: -1 });
      assert.is(before.id, alice);
      assert.is(before.row!.username, 'Alice');
      const unchanged = await repo.changedRows({ [alice]: before.version, [alicia]: -1 });
      // In no particular order (the caller looks each up by id): PostgreSQL's jsonb reorders keys.
      assert.equal(
        new Map(unchanged.map((entry) => [entry.id, entry.row === null])),
        new Map([
          [alice, true],
          [alicia, false],
        ]),
      );
      await repo.update(alice, { display_name: 'Alice A.' });
      const [after] = await repo.changedRows({ [alice]: before.version });
      assert.ok(after.version > before.version, 'an update moves the render version');
      assert.is(after.row!.display_name, 'Alice A.');

      await db('invites').insert({ code: 'join-us', max_uses: 3, created_at: '2026-01-01T00:00:00.000Z' });
      const invite = (await repo.inviteByCode('join-us'))!;
      assert.equal({ ...invite, id: typeof invite.id }, { id: 'string', max_uses: 3, uses: 0, expires_at: null });
      await db('follow_requests').insert({
        account_id: remote,
        target_account_id: alicia,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      assert.is(await repo.followRequestCount(alicia), 1);
      assert.is(await repo.followRequestCount(alice), 0);

      await db('federation_actors').insert({
        account_id: remote,
        moved_to_account_id: alicia,
        fetched_at: '2026-01-01T00:00:00.000Z',
      });
      assert.is((await repo.movedTo(remote))!.id, alicia);
      assert.is(await repo.movedTo(alice), undefined);
    } finally {
      await store.close();
    }
  });

test.run();
