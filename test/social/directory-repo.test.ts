/**
 * The directory repository on both engines: who may be listed, in which order, and follow
 * suggestions (friends of friends before the most followed, each account once).
 */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { DirectoryRepo } from '../../daemon/social/directory/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const AT = '2026-01-01T00:00:00.000Z';

for (const engine of ENGINES) {
  const test = suite(`directory repo (${engine})`);

  let store: RepoContext;
  let repo: DirectoryRepo;
  const ids: Record<string, string> = {};
  const names = (list: string[]) => list.map((id) => Object.keys(ids).find((name) => ids[name] === id) ?? id);

  const person = async (name: string, fields: Record<string, unknown> = {}, domain?: string) => {
    ids[name] = await store.account(name, { domain });
    await store.ctx
      .db('accounts')
      .where({ id: ids[name] })
      .update({ discoverable: true, ...fields });
  };
  const follow = (from: string, to: string) =>
    store.ctx.db('follows').insert({ account_id: ids[from], target_account_id: ids[to], created_at: AT });

  test.before(async () => {
    store = await openRepoContext(() => Date.parse(AT), engine);
    repo = new DirectoryRepo(store.ctx);
    await person('viewer');
    await person('quiet', { last_status_at: '2026-01-01T00:00:00.000Z' });
    await person('busy', { last_status_at: '2026-02-01T00:00:00.000Z', followers_count: 9 });
    await person('faraway', { last_status_at: '2026-01-15T00:00:00.000Z' }, 'peer.example');
    await person('hidden', { discoverable: false });
    await person('suspended', { suspended_at: AT });
    await person('limited', { silenced_at: AT });
    await person('unapproved');
    await store.ctx.db('users').where({ account_id: ids.unapproved }).update({ approved: false });
    await person('disabled');
    await store.ctx.db('users').where({ account_id: ids.disabled }).update({ disabled: true });
    await person('moved');
    await store.ctx
      .db('federation_actors')
      .insert({ account_id: ids.moved, moved_to_account_id: ids.quiet, fetched_at: AT });
    await person('blocker');
    await store.ctx.db('blocks').insert({ account_id: ids.blocker, target_account_id: ids.viewer, created_at: AT });
    await person('muted');
    await store.ctx.db('mutes').insert({ account_id: ids.viewer, target_account_id: ids.muted, created_at: AT });
  });
  test.after(() => store.close());

  test('the directory: listable accounts only, by recent activity or newest, local only when asked', async () => {
    const directory = async (viewer: string | null, order: 'active' | 'new', local = false, offset = 0) =>
      names(await repo.directory(viewer, { order, local, offset, limit: 40 }));
    assert.equal(await directory(ids.viewer, 'active'), ['busy', 'faraway', 'quiet', 'viewer']);
    assert.equal(await directory(ids.viewer, 'new'), ['faraway', 'busy', 'quiet', 'viewer']);
    assert.equal(await directory(ids.viewer, 'active', true), ['busy', 'quiet', 'viewer']);
    assert.equal(await directory(ids.viewer, 'active', false, 2), ['quiet', 'viewer']);
    assert.equal(await directory(null, 'new'), ['muted', 'blocker', 'faraway', 'busy', 'quiet', 'viewer']);
  });

  test('suggestions: friends of friends first (by how many), then the most followed local accounts, each once', async () => {
    await person('popular', { followers_count: 5 });
    await person('lonely');
    await person('friend');
    await person('friend2');
    await follow('viewer', 'friend');
    await follow('viewer', 'friend2');
    await follow('friend', 'quiet');
    await follow('friend2', 'quiet');
    await follow('friend', 'busy');
    await follow('friend', 'faraway');
    const suggestions = await repo.suggestions(ids.viewer, 10);
    assert.equal(
      suggestions.map((s) => [names([s.id])[0], s.source]),
      [
        ['quiet', 'friends_of_friends'],
        ['faraway', 'friends_of_friends'],
        ['busy', 'friends_of_friends'],
        ['popular', 'most_followed'],
        ['lonely', 'most_followed'],
      ],
    );
  });

  test('a dismissed suggestion is not made again; dismissing an unknown account stores nothing', async () => {
    await repo.dismiss(ids.viewer, ids.quiet);
    await repo.dismiss(ids.viewer, ids.quiet);
    await repo.dismiss(ids.viewer, '999999');
    assert.ok(!(await repo.suggestions(ids.viewer, 10)).some((s) => s.id === ids.quiet));
    assert.is(Number((await store.ctx.db('account_suggestion_dismissals').count({ n: '*' }))[0].n), 1);
  });

  test.run();
}
