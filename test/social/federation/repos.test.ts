/**
 * Federation's repositories on both engines: the delivery queue and peers' availability, remote
 * actors (inboxes, keys, picture copies, moves), and local accounts' aliases and moves.
 */
import { suite } from '../../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { ActorsRepo } from '../../../daemon/social/federation/actors/repo.js';
import { LocalMovesRepo } from '../../../daemon/social/federation/actors/moves-repo.js';
import { DeliveryRepo } from '../../../daemon/social/federation/delivery/repo.js';
import { DoneBatches } from '../../../daemon/social/federation/delivery/done-batches.js';
import { PollsRepo } from '../../../daemon/social/polls/repo.js';
import { peerPollChanged } from '../../../daemon/social/polls/service.js';
import { dialectOf } from '../../../daemon/store/dialect.js';
import { ENGINES } from '../../helpers/engines.js';
import { openRepoContext, type RepoContext } from '../repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';

for (const engine of ENGINES) {
  const test = suite(`federation repos (${engine})`);

  let store: RepoContext;
  let deliveries: DeliveryRepo;
  let actors: ActorsRepo;
  let moves: LocalMovesRepo;
  let local: string;

  const peer = async (username: string, domain: string, fields: Record<string, unknown> = {}) => {
    const id = await store.account(username, { domain });
    await store.ctx
      .db('accounts')
      .where({ id })
      .update({ inbox_url: `https://${domain}/users/${username}/inbox`, ...fields });
    return id;
  };

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    deliveries = new DeliveryRepo(store.ctx.db);
    actors = new ActorsRepo(store.ctx);
    moves = new LocalMovesRepo(store.ctx);
    local = await store.account('local');
  });
  test.after(() => store.close());

  test('the delivery queue: claimed in order and leased, rescheduled, removed, all due again, counted', async () => {
    assert.equal(await deliveries.enqueue([], local, '{}', 1000), []);
    const inboxes = [
      { inbox: 'https://a.example/inbox', domain: 'a.example' },
      { inbox: 'https://b.example/inbox', domain: 'b.example' },
    ];
    assert.is((await deliveries.enqueue(inboxes.slice(0, 1), local, '{"n":1}', 1000)).length, 1);
    assert.is((await deliveries.enqueue(inboxes.slice(1), null, '{"n":2}', 1000)).length, 1);
    assert.is(await deliveries.pending(), 2);
    assert.is(await deliveries.nextDueAt(), 1000);
    assert.equal(
      (await deliveries.claim(1000, 9000, 1)).map((row) => row.domain),
      ['a.example'],
      'the oldest first, as many as asked',
    );
    const due = [...(await deliveries.claim(1000, 9000, 10)), ...(await deliveries.claim(9000, 9000, 1))];
    assert.equal(
      due.map((row) => [row.inbox, row.domain, row.sender_account_id, row.body, row.attempts, row.created_at]),
      [
        ['https://b.example/inbox', 'b.example', null, '{"n":2}', 0, 1000],
        ['https://a.example/inbox', 'a.example', local, '{"n":1}', 0, 1000],
      ],
      'a claimed delivery is due again only when its lease ends',
    );
    assert.equal(await deliveries.claim(1000, 9000, 10), [], 'both claimed');
    const born = await deliveries.enqueue(
      [{ inbox: 'https://h.example/inbox', domain: 'h.example' }],
      local,
      '{}',
      1000,
      7000,
    );
    assert.equal(
      born.map((row) => [row.inbox, row.sender_account_id, row.body, row.attempts, row.created_at]),
      [['https://h.example/inbox', local, '{}', 0, 1000]],
    );
    assert.equal(await deliveries.claim(6999, 9000, 10), [], 'queued claimed until 7000');
    assert.equal(
      (await deliveries.claim(7000, 9000, 10)).map((row) => row.id),
      [born[0].id],
    );
    await deliveries.remove(born[0].id);
    assert.is(await deliveries.nextDueAt(), 9000);
    await deliveries.reschedule(due[1].id, 1, 5000, 'x'.repeat(600));
    assert.is(await deliveries.nextDueAt(), 5000);
    await deliveries.remove(due[0].id);
    await deliveries.retryAllNow(2000);
    assert.equal(
      (await deliveries.claim(2000, 9000, 10)).map((row) => [row.domain, row.attempts]),
      [['a.example', 1]],
    );
    const stored = await store.ctx.db('federation_deliveries').where({ id: due[1].id }).first<{ last_error: string }>();
    assert.is(stored.last_error.length, 500);
    await deliveries.remove(due[1].id);
    assert.is(await deliveries.nextDueAt(), null);
    assert.is(await deliveries.pending(), 0);
  });

  test('deliveries done together are removed together: one statement for those that end while one runs', async () => {
    const inboxes = ['m', 'n', 'o', 'p'].map((name) => ({
      inbox: `https://${name}.example/inbox`,
      domain: `${name}.example`,
    }));
    const rows = await deliveries.enqueue(inboxes, local, '{}', 1000);
    const statements: number[][] = [];
    const batches = new DoneBatches(async (ids) => {
      statements.push([...ids]);
      await deliveries.removeAll(ids);
    });
    const first = batches.remove(rows[0].id);
    // The first removal is on its way: the next three wait for it, then go in one statement.
    await Promise.resolve();
    await Promise.all([first, ...rows.slice(1).map((row) => batches.remove(row.id))]);
    assert.equal(statements, [[rows[0].id], rows.slice(1).map((row) => row.id)]);
    assert.is(await deliveries.pending(), 0);
  });

  if (engine === 'postgres')
    test('claims of two processes at once take different deliveries, neither waiting for the other', async () => {
      const inboxes = ['e', 'f', 'g'].map((name) => ({
        inbox: `https://${name}.example/inbox`,
        domain: `${name}.example`,
      }));
      await deliveries.enqueue(inboxes, local, '{}', 1000);
      await store.ctx.db.transaction(async (trx) => {
        const first = await new DeliveryRepo(trx).claim(1000, 9000, 2);
        // The first claim's transaction is open: its rows are locked, the other claim passes them over.
        const second = await deliveries.claim(1000, 9000, 10);
        assert.equal([...first, ...second].map((row) => row.domain).sort(), ['e.example', 'f.example', 'g.example']);
      });
      for (const row of await deliveries.claim(9000, 9000, 10)) await deliveries.remove(row.id);
    });

  test('a peer given up on: marked unavailable, its waiting deliveries dropped, none queued; back when it answers', async () => {
    await deliveries.enqueue(
      [
        { inbox: 'https://c.example/inbox', domain: 'c.example' },
        { inbox: 'https://c.example/users/x/inbox', domain: 'c.example' },
        { inbox: 'https://d.example/inbox', domain: 'd.example' },
      ],
      local,
      '{}',
      1000,
    );
    assert.is(await deliveries.markUnavailable('c.example', AT), 2);
    assert.is(await deliveries.isUnavailable('c.example'), true);
    assert.is(await deliveries.isUnavailable('d.example'), false);
    assert.equal([...(await deliveries.unavailableDomains(['c.example', 'd.example', 'e.example']))], ['c.example']);
    assert.equal([...(await deliveries.unavailableDomains([]))], []);
    const both = [
      { inbox: 'https://c.example/inbox', domain: 'c.example' },
      { inbox: 'https://d.example/users/y/inbox', domain: 'd.example' },
    ];
    assert.is((await deliveries.enqueue(both, local, '{}', 1000)).length, 1, 'the unavailable peer is passed over');
    await deliveries.markAvailable('c.example', AT);
    assert.is(await deliveries.isUnavailable('c.example'), false);
    assert.is(await deliveries.pending(), 2);
  });

  test('remote actors: found by id, uri, key and address; follower inboxes shared first, once per server', async () => {
    const alice = await peer('alice', 'a.example', {
      shared_inbox_url: 'https://a.example/inbox',
      url: 'https://a.example/@alice',
    });
    const bob = await peer('bob', 'a.example', { shared_inbox_url: 'https://a.example/inbox' });
    const carol = await peer('carol', 'c.example');
    for (const follower of [alice, bob, carol])
      await store.ctx.db('follows').insert({ account_id: follower, target_account_id: local, created_at: AT });
    await store.ctx.db('follows').insert({ account_id: local, target_account_id: alice, created_at: AT });
    await actors.setPublicKey(alice, 'https://a.example/users/alice#main-key', 'PEM');
    await store.ctx
      .db('federation_actors')
      .insert({ account_id: alice, fetched_at: AT })
      .onConflict('account_id')
      .ignore();
    await actors.setPublicKey(alice, 'https://a.example/users/alice#main-key', 'PEM');
    const byKey = (await actors.byKeyId('https://a.example/users/alice#main-key'))!;
    assert.equal([byKey.id, byKey.public_key, byKey.locked, byKey.moved_to_account_id], [alice, 'PEM', 0, null]);
    assert.is((await actors.byId(alice))!.uri, 'https://a.example/users/alice');
    assert.is((await actors.byUri('https://a.example/users/alice'))!.id, alice);
    assert.is((await actors.byAcct('ALICE', 'A.example'))!.id, alice);
    assert.is(await actors.idAt('https://a.example/@alice'), alice);
    assert.is(await actors.idAt('https://a.example/users/alice'), alice);
    assert.equal((await actors.followerInboxes(local)).sort(), [
      'https://a.example/inbox',
      'https://c.example/users/carol/inbox',
    ]);
    assert.equal(await actors.localFollowersOf(alice), [{ id: local }]);
    await actors.suspend(carol, AT);
    await actors.suspend(local, AT);
    assert.equal(await actors.followerInboxes(local), ['https://a.example/inbox']);
    assert.is((await actors.byId(local))!.suspended_at, null, 'a local account is never suspended from here');
  });

  test("a peer's picture is pointed at its local copy only while the source is unchanged", async () => {
    const dave = await peer('dave', 'd.example', { avatar: 'https://d.example/a.png' });
    await store.ctx
      .db('federation_actors')
      .insert({ account_id: dave, fetched_at: AT, avatar_source: 'https://d.example/a.png' });
    const copy = { original: '/media/a.png', static: '/media/a.static.png' };
    assert.is(await actors.useCopy(dave, 'avatar', 'https://d.example/b.png', copy), false);
    assert.is(await actors.useCopy(dave, 'avatar', 'https://d.example/a.png', copy), true);
    assert.equal(
      [(await actors.images(dave))!.avatar, (await actors.images(dave))!.avatar_static],
      ['/media/a.png', '/media/a.static.png'],
    );
  });

  test('follow ids, moved peers; local aliases and moves', async () => {
    const erin = await peer('erin', 'e.example');
    const frank = await peer('frank', 'e.example');
    await store.ctx.db('follows').insert({ account_id: erin, target_account_id: local, created_at: AT });
    await actors.setFollowUri(erin, local, 'https://e.example/follows/1');
    assert.is(await actors.followUri(erin, local), 'https://e.example/follows/1');
    assert.is(await actors.followUri(local, erin), null);
    await store.ctx.db('federation_actors').insert({ account_id: erin, fetched_at: AT });
    await actors.setMoved(erin, frank);
    assert.is((await actors.byId(erin))!.moved_to_account_id, frank);

    await moves.addAlias(local, 'https://old.example/users/me');
    await moves.addAlias(local, 'https://old.example/users/me');
    await moves.addAlias(local, 'https://aaa.example/users/me');
    assert.equal(await moves.aliases(local), ['https://aaa.example/users/me', 'https://old.example/users/me']);
    assert.is(await moves.movedTo(local), null);
    await moves.recordMove(local, { id: frank, uri: 'https://e.example/users/frank' }, AT);
    await moves.recordMove(local, { id: erin, uri: 'https://e.example/users/erin' }, AT);
    assert.is(await moves.movedTo(local), 'https://e.example/users/erin');
    assert.is((await actors.byId(local))!.moved_to_account_id, erin);
  });

  test('a remote actor stored and updated with its extras; the same actor stored twice is a unique violation', async () => {
    const id = store.ctx.ids.next();
    const account = (fields: Record<string, unknown>) => ({
      username: 'gina',
      domain: 'g.example',
      uri: 'https://g.example/users/gina',
      locked: true,
      bot: false,
      updated_at: AT,
      ...fields,
    });
    const extra = {
      key_id: 'https://g.example/users/gina#key',
      also_known_as: '["https://old.example/gina"]',
      fetched_at: AT,
    };
    await store.ctx.db.transaction((trx) =>
      actors.insert(trx, account({ id, created_at: AT }), { account_id: id, ...extra }),
    );
    const stored = (await actors.byId(id))!;
    assert.equal([stored.locked, stored.key_id], [1, 'https://g.example/users/gina#key']);
    assert.equal(JSON.parse(stored.also_known_as!), ['https://old.example/gina']);
    await store.ctx.db.transaction((trx) =>
      actors.update(trx, id, account({ locked: false }), { ...extra, key_id: 'https://g.example/users/gina#key2' }),
    );
    assert.equal(
      [(await actors.byId(id))!.locked, (await actors.byId(id))!.key_id],
      [0, 'https://g.example/users/gina#key2'],
    );
    const twice = store.ctx.ids.next();
    const error = await store.ctx.db
      .transaction((trx) => actors.insert(trx, account({ id: twice, created_at: AT }), { account_id: twice, ...extra }))
      .then(
        () => null,
        (failure: unknown) => failure,
      );
    assert.ok(dialectOf(store.ctx.db).isUniqueViolation(error), String(error));
  });

  test("a peer's poll read back is the poll its Question publishes again (new counts are no change)", async () => {
    const author = await peer('quinn', 'q.example');
    const polls = new PollsRepo(store.ctx);
    const statusId = await store.status(author);
    const question = { options: ['cats', 'dogs'], multiple: false, expiresAt: null };
    await store.ctx.db.transaction((trx) =>
      polls.insert(trx, { ...question, id: store.ctx.ids.next(), statusId, accountId: author, hideTotals: false }, AT),
    );
    const stored = (await polls.byStatus(statusId))!;
    assert.is(peerPollChanged(stored, { ...question, tallies: [1, 0], votesCount: 1 }), false);
    assert.is(peerPollChanged(stored, { ...question, options: ['cats', 'birds'] }), true);
    assert.is(peerPollChanged(stored, { ...question, multiple: true }), true);
  });

  test.run();
}
