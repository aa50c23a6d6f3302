/** The announcements repository on both engines: the list and its read state, reactions and their counts, custom emojis. */
import { suite } from '../helpers/named-suite.js';
import * as assert from 'uvu/assert';
import { AnnouncementsRepo } from '../../daemon/social/announcements/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext, type RepoContext } from './repo-context.js';

const NOW = '2026-03-01T00:00:00.000Z';

for (const engine of ENGINES) {
  const test = suite(`announcements repo (${engine})`);

  let store: RepoContext;
  let repo: AnnouncementsRepo;
  let alice: string;
  let bob: string;
  const made: Record<string, string> = {};

  const announce = async (name: string, publishedAt: string, endsAt: string | null = null, allDay = 0) => {
    made[name] = await repo.insert({
      text: name,
      content: `<p>${name}</p>`,
      starts_at: endsAt ? '2026-01-01T00:00:00.000Z' : null,
      ends_at: endsAt,
      all_day: allDay,
      published_at: publishedAt,
      updated_at: publishedAt,
    });
  };

  test.before(async () => {
    store = await openRepoContext(Date.now, engine);
    repo = new AnnouncementsRepo(store.ctx);
    alice = await store.account('alice');
    bob = await store.account('bob');
    await announce('second', '2026-02-02T00:00:00.000Z', '2026-04-01T00:00:00.000Z', 1);
    await announce('first', '2026-02-01T00:00:00.000Z');
    await announce('ended', '2026-01-15T00:00:00.000Z', '2026-02-01T00:00:00.000Z');
  });
  test.after(() => store.close());

  test('the list holds what has not ended, oldest first, read or not; dismissed ones only when asked', async () => {
    const list = async (withDismissed: boolean) =>
      (await repo.list(alice, NOW, withDismissed)).map((row) => [row.text, row.read]);
    assert.equal(await list(false), [
      ['first', 0],
      ['second', 0],
    ]);
    await repo.dismiss(made.first, alice);
    await repo.dismiss(made.first, alice);
    assert.equal(await list(false), [['second', 0]]);
    assert.equal(await list(true), [
      ['first', 1],
      ['second', 0],
    ]);
    assert.equal((await repo.list(bob, NOW, false)).length, 2, "one account's read state is its own");
  });

  test('one announcement as stored, its flag as 0 or 1', async () => {
    assert.equal(await repo.one(made.second), {
      id: made.second,
      text: 'second',
      content: '<p>second</p>',
      starts_at: '2026-01-01T00:00:00.000Z',
      ends_at: '2026-04-01T00:00:00.000Z',
      all_day: 1,
      published_at: '2026-02-02T00:00:00.000Z',
      updated_at: '2026-02-02T00:00:00.000Z',
    });
    assert.is((await repo.one(made.first))!.all_day, 0);
    assert.is(await repo.one('999999'), undefined);
  });

  test('reactions: counted per name in the order first given, whether the viewer gave each; twice is once', async () => {
    await repo.react(made.first, alice, '👍', '2026-02-03T00:00:00.000Z');
    await repo.react(made.first, alice, '👍', '2026-02-03T00:00:01.000Z');
    await repo.react(made.first, bob, '👍', '2026-02-03T00:00:02.000Z');
    await repo.react(made.first, bob, 'party', '2026-02-04T00:00:00.000Z');
    await repo.react(made.second, bob, 'party', '2026-02-05T00:00:00.000Z');
    assert.equal(await repo.reactions(alice, [made.first]), [
      { announcement_id: made.first, name: '👍', count: 2, me: 1 },
      { announcement_id: made.first, name: 'party', count: 1, me: 0 },
    ]);
    assert.equal((await repo.reactions(bob, [made.first, made.second])).length, 3);
    assert.equal(await repo.reactions(bob, []), []);
    assert.is(await repo.reactionCount(made.first, '👍'), 2);
    await repo.unreact(made.first, alice, '👍');
    assert.is(await repo.reactionCount(made.first, '👍'), 1);
    assert.is(await repo.reactionCount(made.first, 'none'), 0);
  });

  test('a custom emoji is found by shortcode, never a disabled or remote one', async () => {
    const emoji = (shortcode: string, extra: Record<string, unknown> = {}) =>
      store.ctx.db('custom_emojis').insert({
        shortcode,
        image_url: `https://box.example/${shortcode}.png`,
        static_url: `https://box.example/${shortcode}.static.png`,
        created_at: NOW,
        ...extra,
      });
    await emoji('blobcat');
    await emoji('gone', { disabled: true });
    await emoji('faraway', { domain: 'peer.example' });
    assert.equal(await repo.customEmoji('blobcat'), {
      image_url: 'https://box.example/blobcat.png',
      static_url: 'https://box.example/blobcat.static.png',
    });
    assert.is(await repo.customEmoji('gone'), undefined);
    assert.is(await repo.customEmoji('faraway'), undefined);
  });

  test.run();
}
