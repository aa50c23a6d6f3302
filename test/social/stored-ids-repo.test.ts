/**
 * On both engines: the highest stored snowflake ids (the id generator starts past them), and the
 * changed-rows read behind the render caches (a row only where the caller's version is not the
 * row's).
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { ChangedRowsQuery } from '../../daemon/social/render/changed-rows.js';
import { StoredIdsRepo } from '../../daemon/social/store/stored-ids-repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const USERNAMES = new ChangedRowsQuery<{ username: string; locked: number }, { domain: string | null }>(
  (
    dialect,
  ) => `SELECT CAST(a.id AS TEXT) AS id, a.version, CAST(k.value AS BIGINT) AS known, a.username, a.locked, a.domain
    FROM ${dialect.entriesTable('k')} JOIN accounts a ON a.id = CAST(k.key AS BIGINT) ORDER BY a.id`,
  ['username', 'locked'],
  ['domain'],
);

for (const engine of ENGINES) {
  const test = suite(`stored ids and changed rows (${engine})`);

  let store: RepoContext;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
  });
  test.after(() => store.close());

  test('the highest id of each snowflake table, empty tables left out, exact above 2^53', async () => {
    const repo = new StoredIdsRepo(store.ctx.reader);
    assert.equal(await repo.highestIds(), []);
    await store.account('first');
    const last = await store.account('last');
    const status = await store.status(last);
    assert.ok(BigInt(status) > 2n ** 53n);
    assert.equal(await repo.highestIds(), [last, status]);
  });

  test('changed rows: each row with its version, its columns only where the known version differs', async () => {
    const alice = await store.account('alice');
    const bob = await store.account('bob', { domain: 'peer.example' });
    const version = async (id: string) =>
      Number((await store.ctx.db('accounts').where({ id }).first<{ version: number }>()).version);
    const aliceVersion = await version(alice);
    const rows = await USERNAMES.run(store.ctx.reader, [JSON.stringify({ [alice]: aliceVersion, [bob]: -1 })]);
    assert.equal(rows, [
      { id: alice, version: aliceVersion, row: null, domain: null },
      { id: bob, version: await version(bob), row: { username: 'bob', locked: 0 }, domain: 'peer.example' },
    ]);
    await store.ctx.db('accounts').where({ id: alice }).update({ locked: true });
    const [changed] = await USERNAMES.run(store.ctx.reader, [JSON.stringify({ [alice]: aliceVersion })]);
    assert.ok(changed.version !== aliceVersion);
    assert.equal(changed.row, { username: 'alice', locked: 1 });
  });

  test.run();
}
