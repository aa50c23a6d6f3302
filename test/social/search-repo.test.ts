/**
 * The search repository on both engines (FTS5 and bm25 on SQLite, GIN-indexed folded vectors and
 * ts_rank_cd on PostgreSQL), with the same expectations: statuses newest first, accounts by
 * username, display name and domain with an exact username first and the best match next, the
 * last word a prefix, case and diacritics folded, and hostile text only ever finding nothing.
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { SearchRepo, type StatusSearch } from '../../daemon/social/search/repo.js';
import { searchTerms } from '../../daemon/social/search/query.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

for (const engine of ENGINES) {
  const test = suite(`search repo (${engine})`);

  let store: RepoContext;
  let repo: SearchRepo;
  let viewer: string;
  let author: string;
  const posts: Record<string, string> = {};

  const post = async (
    name: string,
    text: string,
    options: { visibility?: string; by?: string; spoiler?: string } = {},
  ) => {
    const id = await store.status(options.by ?? author, { visibility: options.visibility });
    await store.ctx
      .db('statuses')
      .where({ id })
      .update({ text, spoiler_text: options.spoiler ?? '' });
    posts[name] = id;
  };
  const named = (ids: Array<{ id: string }>) =>
    ids.map(({ id }) => Object.keys(posts).find((name) => posts[name] === id) ?? id);
  const statuses = async (text: string, more: Partial<StatusSearch> = {}) =>
    named(
      await repo.statuses({
        terms: searchTerms(text),
        viewerId: viewer,
        authorId: null,
        limit: 20,
        offset: 0,
        ...more,
      }),
    );

  const accountNames = new Map<string, string>();
  const account = async (username: string, displayName: string, domain?: string) => {
    const id = await store.account(username, { domain });
    await store.ctx.db('accounts').where({ id }).update({ display_name: displayName });
    accountNames.set(id, domain ? `${username}@${domain}` : username);
    return id;
  };
  const accounts = async (text: string, exact = text) =>
    (await repo.accounts(searchTerms(text), exact, 20, 0)).map(({ id }) => accountNames.get(id) ?? id);

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new SearchRepo(store.ctx);
    viewer = await account('viewer', 'The Viewer');
    author = await account('author', 'Bird Watcher');
    await post('kingfisher', 'The Kingfisher came back today #kingfisher');
    await post('pond', 'A kingfisher at the pond');
    await post('nothing', 'Nothing about birds');
    await post('plural', 'kingfishers everywhere');
    await post('cafe', 'Coffee at the Café Noël, a well-known place');
    await post('spoiler', 'what I saw', { spoiler: 'heron spotted' });
    await post('private', 'a private kingfisher', { visibility: 'private' });
    await post('mine', 'my own kingfisher note', { visibility: 'private', by: viewer });
    const deleted = await store.status(author, { deletedAt: '2026-01-02T00:00:00.000Z' });
    await store.ctx.db('statuses').where({ id: deleted }).update({ text: 'a deleted kingfisher' });
    const reblog = await store.status(viewer);
    await store.ctx.db('statuses').where({ id: reblog }).update({ text: 'kingfisher', reblog_of_id: posts.pond });
  });
  test.after(() => store.close());

  test('statuses: every word matched, the last as a prefix, newest first; case, diacritics and punctuation as in FTS5', async () => {
    assert.equal(await statuses('kingfisher'), ['mine', 'plural', 'pond', 'kingfisher']);
    assert.equal(await statuses('kingf'), ['mine', 'plural', 'pond', 'kingfisher']);
    assert.equal(await statuses('KINGFISHER pond'), ['pond']);
    assert.equal(await statuses('pond kingf'), ['pond']);
    assert.equal(await statuses('kingf pond'), [], 'only the last word is a prefix');
    assert.equal(await statuses('cafe noel'), ['cafe'], 'cafe noel');
    assert.equal(await statuses('CAFÉ'), ['cafe'], 'CAFÉ');
    assert.equal(await statuses('well'), ['cafe'], 'a hyphenated word is two words');
    assert.equal(await statuses('well-known'), ['cafe'], 'well-known');
    assert.equal(await statuses('known-well'), [], 'a phrase keeps its order');
    assert.equal(await statuses('heron'), ['spoiler'], 'the spoiler text is searched');
  });

  test('statuses: paging by id and offset, one author, and the blocks either way', async () => {
    assert.equal(await statuses('kingfisher', { limit: 2 }), ['mine', 'plural']);
    assert.equal(await statuses('kingfisher', { limit: 2, offset: 2 }), ['pond', 'kingfisher']);
    assert.equal(await statuses('kingfisher', { maxId: posts.plural }), ['pond', 'kingfisher']);
    assert.equal(await statuses('kingfisher', { minId: posts.pond }), ['mine', 'plural']);
    assert.equal(await statuses('kingfisher', { authorId: viewer }), ['mine']);
    await store.ctx
      .db('blocks')
      .insert({ account_id: author, target_account_id: viewer, created_at: '2026-01-01T00:00:00.000Z' });
    assert.equal(await statuses('kingfisher'), ['mine']);
    await store.ctx.db('blocks').where({ account_id: author }).delete();
  });

  test('statuses: a page fills past many newer matches the viewer may not see, and stops where the matches do', async () => {
    const blocker = await account('blocker', 'Blocks the viewer');
    const blocked = await account('blocked', 'Blocked by the viewer');
    const stranger = await account('stranger', 'Posts privately');
    await store.ctx.db('blocks').insert([
      { account_id: blocker, target_account_id: viewer, created_at: '2026-01-01T00:00:00.000Z' },
      { account_id: viewer, target_account_id: blocked, created_at: '2026-01-01T00:00:00.000Z' },
    ]);
    await post('egret1', 'an egret');
    await post('egret2', 'another egret');
    for (let i = 0; i < 12; i++) {
      await post(`hidden${i}`, 'egret by a blocker', { by: blocker });
      await post(`blocked${i}`, 'egret by the blocked', { by: blocked });
      await post(`private${i}`, 'a private egret', { by: stranger, visibility: 'private' });
    }
    await post('egret3', 'the newest egret');
    const everyEgret = { terms: ['egret'], viewerId: viewer, authorId: null, limit: 40, offset: 0 };
    assert.equal(await statuses('egret', { limit: 2 }), ['egret3', 'egret2']);
    assert.equal(await statuses('egret', { limit: 1, offset: 1 }), ['egret2']);
    assert.equal(await statuses('egret', { limit: 2, offset: 1 }), ['egret2', 'egret1']);
    assert.equal(await statuses('egret', { limit: 5 }), ['egret3', 'egret2', 'egret1'], 'no more than exist');
    assert.equal(await statuses('egret', { limit: 5, offset: 3 }), []);
    assert.equal(await statuses('egret', { limit: 1, maxId: posts.egret3 }), ['egret2']);
    assert.equal(await statuses('egret', { limit: 5, minId: posts.egret1 }), ['egret3', 'egret2']);
    const wide = repo;
    // A span of 3 newest statuses: most windows go on among the older ones, through the index alone.
    repo = new SearchRepo(store.ctx, 3);
    try {
      assert.equal(await statuses('egret', { limit: 2 }), ['egret3', 'egret2'], 'a short span');
      assert.equal(await statuses('egret', { limit: 2, offset: 1 }), ['egret2', 'egret1']);
      assert.equal(await statuses('egret', { limit: 1, maxId: posts.egret3 }), ['egret2']);
      assert.equal(await statuses('egret', { limit: 5, minId: posts.egret1 }), ['egret3', 'egret2']);
      assert.equal(await statuses('kingfisher'), ['mine', 'plural', 'pond', 'kingfisher'], 'only older matches');
      assert.equal(await statuses('kingfisher', { limit: 2, offset: 2 }), ['pond', 'kingfisher']);
    } finally {
      repo = wide;
    }
    await store.ctx.db('blocks').whereIn('account_id', [blocker, viewer]).delete();
    const all = await statuses('egret', { limit: 40 });
    assert.equal(all.length, 27, 'without the blocks, all but the private ones');
    assert.equal(all.slice(0, 3), ['egret3', 'blocked11', 'hidden11']);
    assert.equal(named(await new SearchRepo(store.ctx, 3).statuses({ ...everyEgret, limit: 40 })), all, 'a short span');
    // The first window's span bound is kept a while: a status posted since is newer than it, and found first.
    const keeping = new SearchRepo(store.ctx, 3);
    assert.equal(named(await keeping.statuses({ ...everyEgret, limit: 40 })), all);
    await post('egret4', 'an egret after the bound was read');
    assert.equal(named(await keeping.statuses({ ...everyEgret, limit: 40 })), ['egret4', ...all], 'with a kept bound');
    assert.equal(named(await keeping.statuses({ ...everyEgret, limit: 2 })), ['egret4', 'egret3']);
  });

  test('accounts: by username, display name and domain; an exact username first, then the best match', async () => {
    await account('anna', 'Anna Riverside');
    await account('river', 'Someone');
    await account('rivers', 'River River Folk', 'remote.example');
    await account('zoe', 'Zoë Sea Otter');
    await account('otto', 'A sea lion and an otter', 'other.example');
    await account('bob_cat', 'Bob');
    assert.equal(await accounts('river'), ['river', 'rivers@remote.example', 'anna']);
    assert.equal(await accounts('folk'), ['rivers@remote.example']);
    assert.equal(await accounts('remote example'), ['rivers@remote.example']);
    assert.equal(await accounts('other'), ['otto@other.example']);
    assert.equal(await accounts('zoe'), ['zoe']);
    assert.equal(await accounts('ZOË', 'nobody'), ['zoe']);
    assert.equal(await accounts('sea otter', 'nobody'), ['zoe', 'otto@other.example'], 'the closer match first');
    assert.equal(await accounts('bob cat'), ['bob_cat']);
    await store.ctx.db('accounts').where({ username: 'river' }).update({ suspended_at: '2026-01-02T00:00:00.000Z' });
    assert.equal(await accounts('river'), ['rivers@remote.example', 'anna'], 'a suspended account is not found');
  });

  test('an exact username (and domain) is found as it is, in any case', async () => {
    const rivers = [...accountNames].find(([, name]) => name === 'rivers@remote.example')![0];
    assert.equal(await repo.exactAccounts('RIVERS', 'Remote.Example', 'box.example'), [{ id: rivers }]);
    assert.equal(await repo.exactAccounts('rivers', null, 'box.example'), []);
    assert.equal(await repo.exactAccounts('Viewer', 'box.example', 'box.example'), [{ id: viewer }]);
  });

  test('hostile text finds nothing or what its words find, never an error', async () => {
    for (const text of [
      `'`,
      `\\`,
      `"kingfisher`,
      `kingfisher'`,
      `king'fisher`,
      `!kingfisher`,
      `kingfisher & | ! <-> :* ( )`,
      `NEAR(kingfisher pond)`,
      `kingfisher OR pond`,
      `a\u0000b`,
      '\u{1F426}',
      `${'x'.repeat(5000)}`,
      `--`,
      `%_`,
      `\\' OR 1=1 --`,
    ]) {
      const terms = searchTerms(text);
      if (terms.length === 0) continue;
      const found = await statuses(text);
      assert.ok(
        found.every((name) => name in posts),
        `${JSON.stringify(text)}: ${JSON.stringify(found)}`,
      );
      await repo.accounts(terms, text, 20, 0);
    }
    assert.equal(await statuses(`"kingfisher pond`), ['pond']);
    assert.equal(await statuses(`kingfisher & | ! <-> :* ( ) pond`), ['pond']);
  });

  test.run();
}
