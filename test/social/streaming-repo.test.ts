/** The stream hub's repository on both engines: a status's facts, and which connected accounts and lists it reaches. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { StreamingRepo } from '../../daemon/social/streaming/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';

for (const engine of ENGINES) {
  const test = suite(`streaming repo (${engine})`);

  let store: RepoContext;
  let repo: StreamingRepo;
  const ids: Record<string, string> = {};
  const names = (list: string[]) => list.map((id) => Object.keys(ids).find((name) => ids[name] === id) ?? id).sort();
  const follow = (from: string, to: string, extra: Record<string, unknown> = {}) =>
    store.ctx.db('follows').insert({ account_id: ids[from], target_account_id: ids[to], created_at: AT, ...extra });
  const tag = async (statusId: string, name: string) => {
    let row = await store.ctx.db('tags').where({ name }).first<{ id: number } | undefined>();
    if (!row)
      [row] = await store.ctx.db('tags').insert({ name, created_at: AT }).returning<Array<{ id: number }>>('id');
    await store.ctx.db('status_tags').insert({ status_id: statusId, tag_id: row.id });
    return row.id;
  };

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new StreamingRepo(store.ctx);
    for (const name of ['author', 'fan', 'quiet', 'muter', 'tagfan', 'blocked', 'stranger'])
      ids[name] = await store.account(name);
    await follow('fan', 'author');
    await follow('quiet', 'author', { show_reblogs: false });
    await follow('muter', 'author');
    await store.ctx.db('mutes').insert({ account_id: ids.muter, target_account_id: ids.author, created_at: AT });
  });
  test.after(() => store.close());

  test("a status's facts: visibility, local, reblog, a reply to someone else, media, its tags lowercased", async () => {
    const status = await store.status(ids.author);
    await store.ctx.db('statuses').where({ id: status }).update({ local: false });
    await tag(status, 'Birds');
    await tag(status, 'ponds');
    const facts = (await repo.statusFacts(status))!;
    assert.equal(
      { ...facts, tags: facts.tags.sort() },
      {
        visibility: 'public',
        local: false,
        reblog: false,
        replyToOther: false,
        media: false,
        tags: ['birds', 'ponds'],
      },
    );
    const reply = await store.status(ids.author, { visibility: 'unlisted' });
    await store.ctx
      .db('statuses')
      .where({ id: reply })
      .update({ in_reply_to_id: status, in_reply_to_account_id: ids.fan });
    await store.ctx.db('media_attachments').insert({
      id: store.ctx.ids.next(),
      account_id: ids.author,
      status_id: reply,
      type: 'image',
      created_at: AT,
      updated_at: AT,
    });
    assert.equal(await repo.statusFacts(reply), {
      visibility: 'unlisted',
      local: true,
      reblog: false,
      replyToOther: true,
      media: true,
      tags: [],
    });
    assert.is(await repo.statusFacts('999999'), null);
  });

  test('home recipients: connected followers not muting, reblogs only to those who take them, direct only to the mentioned, tag followers', async () => {
    const status = await store.status(ids.author);
    const connected = [ids.fan, ids.quiet, ids.muter, ids.tagfan, ids.blocked, ids.stranger];
    const reach = async (audience: { reblog?: boolean; tagged?: boolean; direct?: boolean }, among = connected) =>
      names(
        await repo.homeRecipients(status, ids.author, among, {
          reblog: false,
          tagged: false,
          direct: false,
          ...audience,
        }),
      );
    assert.equal(await reach({}), ['fan', 'quiet']);
    assert.equal(await reach({ reblog: true }), ['fan']);
    assert.equal(await reach({}, [ids.quiet]), ['quiet']);
    assert.equal(await reach({}, []), []);
    await store.ctx.db('mentions').insert({ status_id: status, account_id: ids.quiet });
    assert.equal(await reach({ direct: true }), ['quiet']);
    const tagId = await tag(status, 'kingfisher');
    for (const name of ['tagfan', 'blocked', 'fan'])
      await store.ctx.db('tag_follows').insert({ account_id: ids[name], tag_id: tagId, created_at: AT });
    await store.ctx.db('blocks').insert({ account_id: ids.author, target_account_id: ids.blocked, created_at: AT });
    assert.equal(await reach({ tagged: true }), ['fan', 'quiet', 'tagfan']);
  });

  test('blocked or muted either way; a list is owned only by its owner', async () => {
    assert.is(await repo.blockedOrMuted(ids.muter, ids.author), true);
    assert.is(await repo.blockedOrMuted(ids.blocked, ids.author), true);
    assert.is(await repo.blockedOrMuted(ids.fan, ids.author), false);
    const [list] = await store.ctx
      .db('lists')
      .insert({ account_id: ids.fan, title: 'birds', created_at: AT })
      .returning<Array<{ id: number }>>('id');
    assert.is(await repo.ownsList(ids.fan, String(list.id)), true);
    assert.is(await repo.ownsList(ids.quiet, String(list.id)), false);
  });

  test('the lists that show a status, with their owners', async () => {
    const list = async (owner: string, title: string) =>
      String(
        (
          await store.ctx
            .db('lists')
            .insert({ account_id: ids[owner], title, created_at: AT })
            .returning<Array<{ id: number }>>('id')
        )[0].id,
      );
    const withAuthor = await list('fan', 'with author');
    const without = await list('fan', 'without');
    const notFollowing = await list('stranger', 'not following');
    await store.ctx.db('list_accounts').insert({ list_id: withAuthor, account_id: ids.author, created_at: AT });
    await store.ctx.db('list_accounts').insert({ list_id: notFollowing, account_id: ids.author, created_at: AT });
    const status = await store.status(ids.author);
    assert.equal(await repo.listsShowing(status, [withAuthor, without, notFollowing]), [
      { listId: withAuthor, ownerId: ids.fan },
    ]);
    assert.equal(await repo.listsShowing(status, []), []);
  });

  test.run();
}
