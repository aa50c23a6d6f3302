/**
 * The status paths' SQL on both engines, on the same rows: the one visibility rule (nobody signed
 * in, the author, a follower, the mentioned), render rows with the viewer's flags, an account's
 * statuses, who favourited, a thread's walk, the home, public, hashtag and list timelines, and the
 * counters' floor, media attached to a status, and an edit's history.
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { StatusVisibility } from '../../daemon/social/statuses/visibility.js';
import { StatusesRepo, VIEWER_FLAG } from '../../daemon/social/statuses/repo.js';
import { StatusRenderRowsRepo } from '../../daemon/social/statuses/render-rows-repo.js';
import { ThreadRepo } from '../../daemon/social/statuses/thread-repo.js';
import { TimelinesRepo } from '../../daemon/social/timelines/repo.js';
import { TagsRepo } from '../../daemon/social/tags/repo.js';
import { ListsRepo } from '../../daemon/social/lists/repo.js';
import { MediaRepo } from '../../daemon/social/media/repo.js';
import { StatusEditsRepo } from '../../daemon/social/statuses/edits-repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';
const PAGE = { limit: 20 };

for (const engine of ENGINES) {
  const test = suite(`status repositories (${engine})`);
  let store: RepoContext;
  let author: string, follower: string, stranger: string, mentioned: string;
  let open: string, followersOnly: string, direct: string, reply: string;

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    const { db } = store.ctx;
    [author, follower, stranger, mentioned] = await Promise.all(
      ['author', 'follower', 'stranger', 'mentioned'].map((name) => store.account(name)),
    );
    await db('follows').insert({ account_id: follower, target_account_id: author, created_at: AT });
    open = await store.status(author);
    followersOnly = await store.status(author, { visibility: 'private' });
    direct = await store.status(author, { visibility: 'direct' });
    await db('mentions').insert({ status_id: direct, account_id: mentioned });
    reply = await store.status(follower);
    await db('statuses').where({ id: reply }).update({ in_reply_to_id: open, in_reply_to_account_id: author });
  });
  test.after(() => store.close());

  test('the visibility rule: anyone sees public, followers private, the mentioned direct, the author all', async () => {
    const visibility = new StatusVisibility(store.ctx);
    const all = [open, followersOnly, direct];
    assert.equal([...(await visibility.among(all, null))], [open]);
    assert.equal((await visibility.filter(all, stranger)).sort(), [open]);
    assert.equal((await visibility.filter(all, follower)).sort(), [open, followersOnly].sort());
    assert.equal((await visibility.filter(all, mentioned)).sort(), [open, direct].sort());
    assert.equal((await visibility.filter(all, author)).sort(), [...all].sort());
    const viewers = await visibility.viewersOf(followersOnly, [follower, stranger, author]);
    assert.is(viewers.anyone, false);
    assert.equal([...viewers.accounts].sort(), [follower, author].sort());
    assert.is((await visibility.viewersOf(open, [])).anyone, true);
  });

  test('a status by id as the viewer may see it; render rows carry flags, mentions and visibility', async () => {
    const repo = new StatusesRepo(store.ctx);
    assert.is((await repo.visibleById(followersOnly, null))?.id, undefined);
    assert.is((await repo.visibleById(followersOnly, follower))?.id, followersOnly);
    await store.ctx.db('favourites').insert({ account_id: mentioned, status_id: direct, created_at: AT });
    await store.ctx.db('bookmarks').insert({ account_id: mentioned, status_id: direct, created_at: AT });
    const renderRows = new StatusRenderRowsRepo(store.ctx);
    const [row] = await renderRows.renderRows({ [direct]: -1 }, mentioned);
    assert.is(row.id, direct);
    assert.is(row.flags, VIEWER_FLAG.favourited + VIEWER_FLAG.bookmarked);
    assert.is(row.visible, 1);
    const mentions = row.row!.mention_ids;
    assert.equal(typeof mentions === 'string' ? JSON.parse(mentions) : mentions, [mentioned]);
    const [hidden] = await renderRows.renderRows({ [direct]: row.version }, stranger);
    assert.equal([hidden.visible, hidden.flags, hidden.row], [0, 0, null]);
    // With the accounts in the same statement: the same status rows, and account rows only where
    // the version given is not the account's.
    const [statuses, accounts] = await renderRows.renderRowsAndAccounts({ [direct]: -1 }, mentioned, {
      [author]: -1,
      [stranger]: -1,
    });
    assert.equal(statuses, [row]);
    const authorRow = accounts.find((account) => account.id === author)!;
    assert.is(authorRow.row?.id, author);
    assert.equal(accounts.map((account) => account.id).sort(), [author, stranger].sort());
    const [, again] = await renderRows.renderRowsAndAccounts({ [direct]: row.version }, mentioned, {
      [author]: authorRow.version,
    });
    assert.equal(again, [{ id: author, version: authorRow.version, row: null }]);
    const favouriters = await repo.actors('favourites', direct, { limit: 10 });
    assert.equal(
      favouriters.map((edge) => edge.account_id),
      [mentioned],
    );
  });

  test("an account's statuses as each viewer may see them, newest first, paged", async () => {
    const repo = new StatusesRepo(store.ctx);
    const options = { pinned: false, excludeReplies: false, excludeReblogs: false };
    const ids = async (viewer: string | null, page: { limit: number; maxId?: string; minId?: string } = PAGE) =>
      (await repo.ofAccount(author, viewer, options, page)).map((row) => row.id);
    assert.equal(await ids(null), [open]);
    assert.equal(await ids(follower), [followersOnly, open]);
    assert.equal(await ids(author), [direct, followersOnly, open]);
    assert.equal(await ids(author, { limit: 1, maxId: direct }), [followersOnly]);
    assert.equal(await ids(author, { limit: 1, minId: open }), [followersOnly]);
  });

  test('counters never go below zero', async () => {
    const repo = new StatusesRepo(store.ctx);
    await store.ctx.db.transaction(async (trx) => {
      await repo.adjust(trx, open, 'favourites_count', 2);
      await repo.adjust(trx, open, 'favourites_count', -5);
    });
    assert.is((await repo.byId(open))!.favourites_count, 0);
  });

  test('a thread: the reply under a status and the status above the reply', async () => {
    const thread = new ThreadRepo(store.ctx);
    assert.equal(await thread.ancestorIds(reply, null, 10), [open]);
    const below = await thread.descendants(open, stranger, { descendants: 10, depth: null });
    assert.equal(below, [{ id: reply, account_id: follower, in_reply_to_account_id: author }]);
  });

  test('home, public, hashtag and list timelines', async () => {
    const timelines = new TimelinesRepo(store.ctx);
    const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);
    // The home feed is kept by the database's own rules (triggers) on both engines.
    assert.equal(ids(await timelines.home(follower, PAGE)), [reply, followersOnly, open]);
    const everywhere = { local: false, remote: false, onlyMedia: false };
    assert.equal(ids(await timelines.public(everywhere, null, PAGE)), [open]);
    assert.equal(ids(await timelines.public({ ...everywhere, local: true }, stranger, PAGE)), [open]);
    assert.equal(ids(await timelines.public({ ...everywhere, remote: true }, null, PAGE)), []);
    const tags = new TagsRepo(store.ctx);
    await store.ctx.db.transaction(async (trx) => {
      await tags.tagStatus(trx, open, ['Birds']);
      await tags.tagStatus(trx, reply, ['birds', 'cats']);
    });
    const [birds, cats] = await tags.byNames(['BIRDS', 'cats']);
    const tagged = (any: number[], none: number[] = []) =>
      timelines.tag({ ...everywhere, any, all: [], none }, null, PAGE).then(ids);
    assert.equal(await tagged([birds.id]), [reply, open]);
    assert.equal(await tagged([birds.id], [cats.id]), [open]);
    assert.equal(await tagged([birds.id, cats.id]), [reply, open]);
    const lists = new ListsRepo(store.ctx);
    const list = await lists.insert(follower, { title: 'authors', replies_policy: 'list', exclusive: 0 }, AT);
    assert.is(await lists.addMembers(list, [author], AT), true);
    assert.is(await lists.addMembers(list, [author], AT), false);
    assert.equal(ids(await timelines.list(follower, list, PAGE)), [followersOnly, open]);
    assert.equal(
      (await lists.members(list, { limit: 0 })).map((member) => member.account_id),
      [author],
    );
    assert.equal(await lists.unrelated(follower, [author, stranger]), [{ id: stranger }]);
  });

  test('media attached once to a status, and the edit history keeps each version with its media', async () => {
    const media = new MediaRepo(store.ctx);
    const edits = new StatusEditsRepo(store.ctx);
    const { db } = store.ctx;
    const ids = [store.ctx.ids.next(), store.ctx.ids.next()];
    for (const id of ids)
      await media.insert({ id, account_id: author, type: 'image', state: 'done', created_at: AT, updated_at: AT });
    assert.is(await db.transaction((trx) => media.attach(trx, open, author, ids)), 2);
    assert.is(await db.transaction((trx) => media.attach(trx, followersOnly, author, ids)), 0);
    assert.equal(
      (await media.ofStatuses([open])).map((row) => row.id),
      ids,
    );
    assert.equal([...(await media.existing([ids[0], '1']))], [ids[0]]);
    await db.transaction(async (trx) => {
      await edits.beforeEdit(trx, open);
      await trx('statuses')
        .where({ id: open })
        .update({ content: '<p>edited</p>', edited_at: '2026-01-02T00:00:00.000Z' });
      await edits.afterEdit(trx, open);
    });
    const history = await edits.history(open);
    assert.equal(
      history.map((version) => [version.content, version.media_ids, version.created_at]),
      [
        ['', ids, AT],
        ['<p>edited</p>', ids, '2026-01-02T00:00:00.000Z'],
      ],
    );
  });

  test.run();
}
