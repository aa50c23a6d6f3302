/**
 * The instance records' SQL (figures, rules, custom emojis, peers, contact) on both engines: the
 * same rows give the same answers on SQLite and PostgreSQL.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InstanceRepo } from '../../daemon/social/instance/repo.js';
import { ENGINES } from '../helpers/engines.js';
import { openRepoContext } from './repo-context.js';

const NOW = Date.parse('2026-02-01T00:00:00.000Z');

for (const engine of ENGINES)
  test(`the instance's figures, rules, emojis, peers and contact (${engine})`, async () => {
    const store = await openRepoContext(() => NOW, engine);
    try {
      const { db } = store.ctx;
      const repo = new InstanceRepo(store.ctx);
      const owner = await store.account('Owner');
      await store.account('waiting', { approved: false });
      const suspended = await store.account('gone');
      await db('accounts').where({ id: suspended }).update({ suspended_at: '2026-01-02T00:00:00.000Z' });
      await db('users').where({ account_id: owner }).update({ role: 'owner' });
      await db('accounts').where({ id: owner }).update({ last_status_at: '2026-01-20T00:00:00.000Z' });
      for (const [username, domain] of [
        ['a', 'Peer.Example'],
        ['b', 'peer.example'],
        ['c', 'other.example'],
        ['d', 'zeta.example'],
      ])
        await store.account(username, { domain });
      await store.status(owner);
      await store.status(owner, { deletedAt: '2026-01-03T00:00:00.000Z' });
      await db('statuses').insert({
        id: store.ctx.ids.next(),
        account_id: owner,
        uri: 'https://peer.example/notes/1',
        local: false,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      assert.equal(await repo.stats(), { users: 1, statuses: 1, domains: 3, active_month: 1 });

      await db('server_rules').insert([
        { text: 'second', hint: '', position: 2 },
        { text: 'first', hint: 'be kind', position: 1 },
      ]);
      assert.equal(
        (await repo.rules()).map((rule) => [rule.text, rule.hint]),
        [
          ['first', 'be kind'],
          ['second', ''],
        ],
      );

      const emoji = (shortcode: string, extra: Record<string, unknown> = {}) => ({
        shortcode,
        image_url: `https://box.example/emoji/${shortcode}.png`,
        static_url: `https://box.example/emoji/${shortcode}.png`,
        domain: null,
        visible_in_picker: true,
        disabled: false,
        created_at: '2026-01-01T00:00:00.000Z',
        ...extra,
      });
      await db('custom_emojis').insert([
        emoji('Zebra'),
        emoji('ant', { visible_in_picker: false }),
        emoji('off', { disabled: true }),
        emoji('theirs', { domain: 'peer.example' }),
      ]);
      const emojis = await repo.emojis();
      assert.equal(
        emojis.map((row) => [row.shortcode, Number(row.visible_in_picker)]),
        [
          ['ant', 0],
          ['Zebra', 1],
        ],
      );

      assert.equal(await repo.peers('', 10), [
        { domain: 'other.example' },
        { domain: 'peer.example' },
        { domain: 'zeta.example' },
      ]);
      assert.equal(await repo.peers('PE', 10), [{ domain: 'peer.example' }]);
      assert.equal(await repo.peers('', 1), [{ domain: 'other.example' }]);

      assert.equal(await repo.contactAccountId(), { id: owner, email: 'Owner@example.test' });
      assert.is(await repo.localAccountId('owner'), owner);
      assert.is(await repo.localAccountId('gone'), undefined);
    } finally {
      await store.close();
    }
  });

for (const engine of ENGINES)
  test(`the instance counts the device state shows: accounts, statuses, the owner's requests and unread notifications (${engine})`, async () => {
    const store = await openRepoContext(() => NOW, engine);
    try {
      const { db } = store.ctx;
      const repo = new InstanceRepo(store.ctx);
      assert.equal(await repo.counts(), {
        accounts: 0,
        statuses: 0,
        pending_follow_requests: 0,
        unread_notifications: 0,
      });
      const owner = await store.account('owner');
      await db('users').where({ account_id: owner }).update({ role: 'owner' });
      const friend = await store.account('friend');
      const remote = await store.account('remote', { domain: 'peer.example' });
      await db('accounts').where({ id: owner }).update({ statuses_count: 3 });
      await db('accounts').where({ id: friend }).update({ statuses_count: 2 });
      await db('accounts').where({ id: remote }).update({ statuses_count: 50 });
      await db('follow_requests').insert({
        account_id: remote,
        target_account_id: owner,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      const notify = (filtered: boolean) =>
        db('notifications')
          .insert({
            account_id: owner,
            from_account_id: friend,
            type: 'follow',
            filtered,
            created_at: '2026-01-01T00:00:00.000Z',
          })
          .returning<Array<{ id: number }>>('id');
      const [first] = await notify(false);
      await notify(false);
      await notify(true);
      assert.equal(await repo.counts(), {
        accounts: 2,
        statuses: 5,
        pending_follow_requests: 1,
        unread_notifications: 2,
      });
      await db('markers').insert({
        account_id: owner,
        timeline: 'notifications',
        last_read_id: first.id,
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      assert.is((await repo.counts()).unread_notifications, 1);
    } finally {
      await store.close();
    }
  });

test.run();
