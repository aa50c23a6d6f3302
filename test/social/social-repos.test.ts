/**
 * The social paths' SQL beside the statuses, on both engines with the same rows: notifications (v1
 * pages, grouped v2 pages, unread counts), conversations, relationships, markers, polls, featured
 * tags and endorsements, filters, tokens and their vacuum, rate limits and e-mail confirmation.
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { NotificationsRepo } from '../../daemon/social/notifications/repo.js';
import { GROUPABLE_TYPES } from '../../daemon/social/notifications/types.js';
import { ConversationsRepo } from '../../daemon/social/conversations/repo.js';
import { RelationshipsRepo } from '../../daemon/social/relationships/repo.js';
import { MarkersRepo } from '../../daemon/social/markers/repo.js';
import { PollsRepo } from '../../daemon/social/polls/repo.js';
import { FeaturedRepo } from '../../daemon/social/featured/repo.js';
import { TagsRepo } from '../../daemon/social/tags/repo.js';
import { FiltersRepo } from '../../daemon/social/filters/repo.js';
import { OAuthRepo } from '../../daemon/social/oauth/repo.js';
import { RateLimitsRepo } from '../../daemon/social/ratelimit/repo.js';
import { AccountsRepo } from '../../daemon/social/accounts/repo.js';
import { EmailsRepo } from '../../daemon/social/emails/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';
const EVERY_TYPE = { types: null, includeFiltered: false };

for (const engine of ENGINES) {
  const test = suite(`social repositories (${engine})`);
  let store: RepoContext;
  let me: string, ann: string, bo: string, cy: string, post: string;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    [me, ann, bo, cy] = await Promise.all(['me', 'ann', 'bo', 'cy'].map((name) => store.account(name)));
    post = await store.status(me);
  });
  test.after(() => store.close());

  test('notifications: v1 pages, grouped v2 pages with samples and counts, unread counts, removal', async () => {
    const repo = new NotificationsRepo(store.ctx);
    const notify = (from: string, type: string, groupKey: string | null, filtered = false) =>
      store.ctx.db.transaction((trx) =>
        repo.insert(trx, {
          account_id: me,
          from_account_id: from,
          type,
          status_id: type === 'follow' ? null : post,
          activity_id: null,
          group_key: groupKey,
          filtered,
          created_at: AT,
        }),
      );
    const first = await notify(ann, 'favourite', `favourite-${post}`);
    const second = await notify(bo, 'favourite', `favourite-${post}`);
    const follow = await notify(cy, 'follow', null);
    const hidden = await notify(cy, 'mention', null, true);
    const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);
    assert.equal(ids(await repo.list(me, EVERY_TYPE, { limit: 10 })), [follow, second, first]);
    assert.equal(ids(await repo.list(me, { ...EVERY_TYPE, includeFiltered: true }, { limit: 1 })), [hidden]);
    assert.equal(ids(await repo.list(me, EVERY_TYPE, { limit: 1, minId: first })), [second]);
    assert.equal(ids(await repo.list(me, { types: ['favourite'], includeFiltered: false }, { limit: 10 })), [
      second,
      first,
    ]);
    const groups = await repo.groupedPage(me, EVERY_TYPE, GROUPABLE_TYPES, { limit: 10 });
    assert.equal(
      groups.map((group) => [group.groupKey, group.count, group.newestId, group.minId, group.sampleAccountIds]),
      [
        [`ungrouped-${follow}`, 1, follow, follow, [cy]],
        [`favourite-${post}`, 2, second, first, [bo, ann]],
      ],
    );
    const [older] = await repo.groupedPage(me, EVERY_TYPE, GROUPABLE_TYPES, { limit: 1, maxId: follow });
    assert.equal([older.groupKey, older.count], [`favourite-${post}`, 2]);
    assert.is(await repo.countUnread(me, EVERY_TYPE, 100), 3);
    assert.is(await repo.countUnread(me, EVERY_TYPE, 2), 2);
    assert.is(await repo.countUnreadGroups(me, EVERY_TYPE, GROUPABLE_TYPES, 100), 2);
    assert.equal(ids(await repo.byGroupKey(me, `ungrouped-${second}`)), [second, first]);
    assert.is(await repo.removeIds(me, [first, hidden]), 2);
    assert.equal(ids(await repo.list(me, { ...EVERY_TYPE, includeFiltered: true }, { limit: 10 })), [follow, second]);
  });

  test('conversations: a direct message reaches its participants, unread but for its author', async () => {
    const repo = new ConversationsRepo(store.ctx);
    const { db } = store.ctx;
    const [conversation] = await db('conversations').insert({ created_at: AT }).returning<Array<{ id: number }>>('id');
    const message = await store.status(ann, { visibility: 'direct' });
    await db('statuses').where({ id: message }).update({ conversation_id: conversation.id });
    await db('mentions').insert({ status_id: message, account_id: me });
    await db.transaction((trx) => repo.reach(trx, message, [me]));
    await db.transaction((trx) => repo.reach(trx, message, [me]));
    const [mine] = await repo.page(me, { limit: 10 });
    assert.equal([mine.unread, mine.last_status_id, JSON.parse(mine.participant_ids)], [1, message, [ann]]);
    const [theirs] = await repo.page(ann, { limit: 10 });
    assert.equal([theirs.unread, JSON.parse(theirs.participant_ids)], [0, [me]]);
    assert.is(await repo.markRead(me, mine.id), true);
    assert.is((await repo.one(me, mine.id))!.unread, 0);
    assert.is(await repo.remove(me, mine.id), true);
    assert.equal(await repo.page(me, { limit: 10 }), []);
  });

  test('relationships: follows, blocks and mutes, in one query and as pages', async () => {
    const repo = new RelationshipsRepo(store.ctx);
    const { db } = store.ctx;
    const edge = (table: 'follows' | 'blocks', from: string, to: string) =>
      db.transaction((trx) => repo.insertEdge(trx, table, { account_id: from, target_account_id: to, created_at: AT }));
    assert.is(await edge('follows', me, ann), true);
    assert.is(await edge('follows', me, ann), false);
    await edge('follows', ann, bo);
    await edge('blocks', cy, me);
    await repo.upsertMute({ accountId: me, targetId: bo, hideNotifications: true, expiresAt: null, createdAt: AT });
    const rows = await repo.relationships(me, [ann, bo, cy]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    assert.equal(
      [byId.get(ann)!.following, byId.get(ann)!.showing_reblogs, byId.get(ann)!.muting, byId.get(ann)!.blocked_by],
      [1, 1, 0, 0],
    );
    assert.equal([byId.get(bo)!.following, byId.get(bo)!.muting, byId.get(bo)!.muting_notifications], [0, 1, 1]);
    assert.is(byId.get(cy)!.blocked_by, 1);
    assert.is(await repo.mutes(me, bo, true), true);
    const followed = await repo.listEdges('follows', 'out', me, { limit: 10 });
    assert.equal(
      followed.map((row) => row.account_id),
      [ann],
    );
    assert.equal([...(await repo.hiddenFrom(me, [ann, bo, cy]))].sort(), [bo, cy].sort());
    assert.equal(await repo.familiarFollowers(me, [bo]), [{ target_id: bo, account_id: ann }]);
  });

  test('markers keep a version; a stale one is refused', async () => {
    const repo = new MarkersRepo(store.ctx);
    assert.is((await repo.save(me, 'home', '100', null))!.version, 0);
    assert.is((await repo.save(me, 'home', '200', 0))!.version, 1);
    assert.is(await repo.save(me, 'home', '300', 0), null);
    assert.equal(
      (await repo.list(me, ['home', 'notifications'])).map((marker) => [marker.timeline, marker.last_read_id]),
      [['home', '200']],
    );
  });

  test('polls: votes counted once per voter, own choices, ended polls told once', async () => {
    const repo = new PollsRepo(store.ctx);
    const { db } = store.ctx;
    const id = store.ctx.ids.next();
    const past = '2025-12-31T00:00:00.000Z';
    const poll = { id, statusId: post, accountId: me, options: ['a', 'b'], multiple: true, hideTotals: false };
    await db.transaction((trx) => repo.insert(trx, { ...poll, expiresAt: past }, AT));
    const vote = (choices: number[]) =>
      db.transaction((trx) =>
        repo.addVotes(
          trx,
          id,
          ann,
          choices.map((choice) => ({ choice, uri: null })),
          AT,
        ),
      );
    assert.equal(await vote([0, 1]), [0, 1]);
    assert.equal(await vote([1]), []);
    const [row] = await repo.ofStatuses([post], ann);
    assert.equal(
      [JSON.parse(row.tallies), row.votes_count, row.voters_count, JSON.parse(row.own_votes!)],
      [[1, 1], 2, 1, [0, 1]],
    );
    assert.equal(JSON.parse((await repo.ofStatuses([post], bo))[0].own_votes!), []);
    assert.equal(
      (await repo.ended(AT)).map((ended) => ended.id),
      [id],
    );
    assert.is(await repo.markNotified(id), true);
    assert.is(await repo.markNotified(id), false);
    assert.equal(await repo.ended(AT), []);
  });

  test('featured tags with their public use, suggestions, and endorsements of followed accounts', async () => {
    const featured = new FeaturedRepo(store.ctx);
    const tags = new TagsRepo(store.ctx);
    await store.ctx.db.transaction((trx) => tags.tagStatus(trx, post, ['garden']));
    const [garden] = await tags.byNames(['garden']);
    assert.equal(await featured.suggestions(me), [{ id: garden.id, name: 'garden' }]);
    assert.is(await featured.feature(me, garden.id), true);
    const [row] = await featured.tags(me);
    assert.equal([row.name, row.statuses_count, row.last_status_at], ['garden', 1, AT]);
    assert.equal([...(await featured.featuring(me, [garden.id]))], [garden.id]);
    assert.is(await featured.endorse(me, ann), true);
    assert.is(await featured.endorse(me, ann), true);
    assert.is(await featured.endorse(me, cy), false);
    assert.equal(
      (await featured.endorsed(me, { limit: 10 })).map((edge) => edge.account_id),
      [ann],
    );
    assert.equal(
      (await tags.search('gar', { exact: false, reviewedOnly: false, limit: 5, offset: 0 })).map((tag) => tag.name),
      ['garden'],
    );
  });

  test('filters and their keywords', async () => {
    const repo = new FiltersRepo(store.ctx);
    const filter = await store.ctx.db.transaction(async (trx) => {
      const id = await repo.insertFilter(trx, {
        account_id: me,
        title: 'spoilers',
        context: JSON.stringify(['home']),
        action: 'warn',
        created_at: AT,
      });
      await repo.insertKeyword(trx, id, 'finale', true, AT);
      return id;
    });
    assert.equal(
      (await repo.active(me, AT)).map((row) => row.id),
      [filter],
    );
    const [keyword] = await repo.keywords([filter]);
    assert.equal([keyword.keyword, keyword.whole_word], ['finale', 1]);
  });

  test('tokens found by hash with their user, revoked ones vacuumed; rate limits; e-mail confirmation', async () => {
    const oauth = new OAuthRepo(store.ctx);
    const app = await oauth.insertApp({
      name: 'app',
      website: null,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read',
      client_id: 'client-a',
      client_secret: 'secret',
    });
    assert.is((await oauth.appByClientId('client-a'))!.id, app);
    const token = await oauth.insertToken({ token_hash: 'hash-a', app_id: app, account_id: me, scopes: 'read' });
    const found = await oauth.tokenByHash('hash-a');
    assert.equal([found!.id, found!.account_id, found!.approved], [token.id, me, 1]);
    await oauth.revokeToken(token.id);
    assert.is(await oauth.tokenByHash('hash-a'), undefined);
    assert.equal(await oauth.vacuum(new Date('2030-01-01T00:00:00.000Z'), 0), { tokens: 1, codes: 0, apps: 1 });

    const limits = new RateLimitsRepo(store.ctx);
    await store.ctx.db.transaction(async (trx) => {
      assert.is(await limits.add(trx, me, 'statuses', 1000, 2), 1);
      assert.is(await limits.add(trx, me, 'statuses', 1000, 2), 2);
      assert.is(await limits.add(trx, me, 'statuses', 1000, 2), null, 'a full window counts nothing');
    });
    assert.is(await limits.peek(me, 'statuses', 1000), 2);
    await store.ctx.db.transaction(async (trx) => {
      assert.is(await limits.add(trx, me, 'statuses', 2000, 2), 1);
      await limits.dropOlder(trx, me, 'statuses', 2000);
    });
    assert.is(await limits.peek(me, 'statuses', 1000), 0, 'the older window dropped');
    assert.is(await limits.peek(me, 'statuses', 2000), 1);
    // A change sent beside the count (one statement on PostgreSQL) is made with it.
    const counted = () => store.ctx.db('accounts').whereRaw('id = ?', [ann]).first('statuses_count', 'last_status_at');
    const before = (await counted()) as { statuses_count: number };
    await store.ctx.db.transaction(async (trx) => {
      const beside = new AccountsRepo(store.ctx).statusPostedChange(ann, '2030-01-01T00:00:00.000Z');
      assert.is(await limits.add(trx, ann, 'statuses', 2000, 2, beside), 1);
    });
    assert.equal(await counted(), {
      statuses_count: before.statuses_count + 1,
      last_status_at: '2030-01-01T00:00:00.000Z',
    });

    const emails = new EmailsRepo(store.ctx);
    assert.is(await emails.takenByAnother('ANN@example.test', me), true);
    await emails.setConfirmationToken(me, 'confirm-hash', AT);
    assert.is(await emails.confirm('confirm-hash', AT), true);
    assert.is(await emails.confirm('confirm-hash', AT), false);
    assert.is((await emails.user(me))!.confirmed_at, AT);
  });

  test.run();
}
