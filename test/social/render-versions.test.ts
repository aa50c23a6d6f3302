/**
 * Rendered accounts and statuses are reused only while their render version holds: every change,
 * through the API or straight into the database from another process, shows at the next read.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRows } from '../../daemon/store/dialect.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice');
  bob = await h.account('bob');
});
test.after(async () => {
  await h?.stop();
});

/** Another process writing to the box's database, as the admin tool or a restore script would. */
const elsewhere = () => h.admin.social.ctx.db;

async function version(table: 'accounts' | 'statuses', id: string): Promise<number> {
  const rows = await rawRows<{ version: number }>(elsewhere(), `SELECT version FROM ${table} WHERE id = ?`, [id]);
  return rows[0].version;
}

test('an account embedded in statuses follows every change to it, whoever writes it', async () => {
  const posted = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'hello' });
  const read = async () => (await h.api(bob.token, 'GET', `/api/v1/statuses/${posted.body.id}`)).body.account;
  const first = await read();
  assert.is(first.statuses_count, 1);
  assert.equal(await read(), first);

  await h.api(alice.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Alice A' });
  assert.is((await read()).display_name, 'Alice A');

  const before = await version('accounts', alice.id);
  await elsewhere().raw(`UPDATE accounts SET display_name = 'Renamed elsewhere' WHERE id = ?`, [alice.id]);
  assert.is(await version('accounts', alice.id), before + 1);
  assert.is((await read()).display_name, 'Renamed elsewhere');

  await h.api(bob.token, 'POST', `/api/v1/accounts/${alice.id}/follow`);
  assert.is((await read()).followers_count, 1);
});

test('a notifications page shows a sender changed behind its back, with the same page otherwise', async () => {
  const carol = await h.account('carol');
  const posted = await h.api(carol.token, 'POST', '/api/v1/statuses', { status: 'hi from carol' });
  await h.api(bob.token, 'POST', `/api/v1/statuses/${posted.body.id}/favourite`);
  const page = async () => (await h.api(carol.token, 'GET', '/api/v2/notifications?max_id=9223372036854775807')).body;
  const first = await page();
  const sender = () => first.accounts.find((a: { id: string }) => a.id === bob.id);
  assert.ok(sender());
  await elsewhere().raw(`UPDATE accounts SET display_name = 'Bob B', bot = TRUE WHERE id = ?`, [bob.id]);
  const renamed = (body: any) => body.accounts.find((a: { id: string }) => a.id === bob.id)?.display_name === 'Bob B';
  const second = await h.heard(page, renamed);
  const changed = second.accounts.find((a: { id: string }) => a.id === bob.id);
  assert.is(changed.display_name, 'Bob B');
  assert.is(changed.bot, true);
  assert.equal({ ...changed, display_name: sender().display_name, bot: sender().bot }, sender());
  assert.equal(second.notification_groups, first.notification_groups);
});

test("a status shown again follows changes to its row, mentions and hashtags, and each viewer's own flags", async () => {
  const posted = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'plain words' });
  const id = posted.body.id as string;
  const read = async (token = bob.token) => (await h.api(token, 'GET', `/api/v1/statuses/${id}`)).body;
  assert.is((await read()).favourites_count, 0);

  await h.api(bob.token, 'POST', `/api/v1/statuses/${id}/favourite`);
  const favourited = await read();
  assert.is(favourited.favourites_count, 1);
  assert.is(favourited.favourited, true);
  assert.is((await read(alice.token)).favourited, false, "flags are the viewer's own");

  const before = await version('statuses', id);
  await elsewhere().raw(`UPDATE statuses SET content = '<p>changed elsewhere</p>' WHERE id = ?`, [id]);
  assert.ok((await version('statuses', id)) > before);
  assert.is((await read()).content, '<p>changed elsewhere</p>');

  await elsewhere().raw(`INSERT INTO mentions (status_id, account_id) VALUES (?, ?)`, [id, bob.id]);
  assert.equal(
    (await read()).mentions.map((m: { id: string }) => m.id),
    [bob.id],
  );

  const tagged = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'about #gardens' });
  const readTagged = async () => (await h.api(bob.token, 'GET', `/api/v1/statuses/${tagged.body.id}`)).body;
  assert.equal(
    (await readTagged()).tags.map((t: { name: string }) => t.name),
    ['gardens'],
  );
  await elsewhere().raw(`DELETE FROM status_tags WHERE status_id = ?`, [tagged.body.id]);
  assert.equal((await readTagged()).tags, []);

  await h.api(bob.token, 'POST', `/api/v1/statuses/${id}/unfavourite`);
  const unfavourited = await read();
  assert.is(unfavourited.favourites_count, 0);
  assert.is(unfavourited.favourited, false);
});

test("a reblog shows its original as it is now, and a viewer's new filter applies at once", async () => {
  const original = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'about tomatoes' });
  const reblog = await h.api(bob.token, 'POST', `/api/v1/statuses/${original.body.id}/reblog`);
  assert.is(reblog.status, 200);
  const read = async () => (await h.api(alice.token, 'GET', `/api/v1/statuses/${reblog.body.id}`)).body;
  assert.is((await read()).reblog.content, '<p>about tomatoes</p>');
  await elsewhere().raw(`UPDATE statuses SET content = '<p>about potatoes</p>' WHERE id = ?`, [original.body.id]);
  assert.is((await read()).reblog.content, '<p>about potatoes</p>');

  const dave = await h.account('dave');
  const readByDave = async () => (await h.api(dave.token, 'GET', `/api/v1/statuses/${original.body.id}`)).body;
  assert.equal((await readByDave()).filtered, []);
  const filter = await h.api(dave.token, 'POST', '/api/v2/filters', {
    title: 'veg',
    context: ['home', 'public', 'thread'],
    keywords_attributes: [{ keyword: 'potatoes' }],
  });
  assert.is(filter.status, 200);
  const filtered = (await readByDave()).filtered;
  assert.is(filtered.length, 1);
  assert.equal(filtered[0].keyword_matches, ['potatoes']);
  assert.equal(
    (await h.api(bob.token, 'GET', `/api/v1/statuses/${original.body.id}`)).body.filtered,
    [],
    "another viewer's filters do not apply",
  );
  await h.api(dave.token, 'DELETE', `/api/v2/filters/${filter.body.id}`);
  assert.equal((await readByDave()).filtered, []);
});

test.run();
