/**
 * The first run's owner account through the owner API, on real daemons: only while no owner
 * exists, only with the setup key (or from the setup network), wrong keys counted and throttled,
 * nothing half-created when the input is refused, the owner signed in to the dashboard, then 404.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Knex } from 'knex';
import { rawRows } from '../../daemon/store/dialect.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { freePort } from '../helpers/ports.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

const KEY = 'test-setup-key-22';
const OWNER = { username: 'nest_owner', email: 'owner@example.test', password: 'a long pass 123', display_name: 'Kim' };
const users = async (h: SocialHarness) =>
  (await rawRows<{ n: number }>((h.admin as any).db as Knex, 'SELECT count(*) AS n FROM users'))[0].n;

test('the owner is created once, with the setup key, and signed in to the dashboard; then the flow is gone', async () => {
  const h = await startSocialDaemon({ NESTBOX_SETUP_PASSPHRASE: KEY });
  try {
    const open = await h.api(null, 'GET', '/api/nestbox/v1/onboarding');
    assert.is(open.status, 200);
    assert.equal(open.body, { owner_needed: true, setup_key_needed: true });
    await h.account('alice');

    const create = (body: Record<string, unknown>) => h.api(null, 'POST', '/api/nestbox/v1/onboarding/owner', body);
    const noKey = await create(OWNER);
    assert.is(noKey.status, 403);
    assert.match(noKey.body.error, /setup key from the box's label/);
    const wrongKey = await create({ ...OWNER, setup_key: 'abcd-efgh-jkmn' });
    assert.is(wrongKey.status, 403);
    assert.match(wrongKey.body.error, /not this box's setup key/);

    const weak = await create({ ...OWNER, password: 'short', setup_key: KEY });
    assert.is(weak.status, 422);
    assert.is(weak.body.details.password[0].error, 'ERR_TOO_SHORT');
    const taken = await create({ ...OWNER, username: 'alice', setup_key: KEY });
    assert.is(taken.status, 422);
    assert.is(taken.body.details.username[0].error, 'ERR_TAKEN');
    const longName = await create({ ...OWNER, display_name: 'x'.repeat(31), setup_key: KEY });
    assert.is(longName.body.details.display_name[0].error, 'ERR_TOO_LONG');
    assert.is(await users(h), 1, 'a refused owner left rows behind');

    const created = await create({ ...OWNER, setup_key: ` ${KEY} ` });
    assert.is(created.status, 200, JSON.stringify(created.body));
    assert.is(created.body.account.username, OWNER.username);
    assert.is(created.body.account.display_name, 'Kim');
    assert.is(created.body.scope, 'admin:read admin:write');
    assert.ok(created.body.client_id && created.body.client_secret);
    const state = await h.api(created.body.access_token, 'GET', '/api/nestbox/v1/state');
    assert.is(state.status, 200);
    assert.ok(h.daemon.logs.some((line) => line.msg === 'owner account created at onboarding'));
    assert.not.ok(JSON.stringify(h.daemon.logs).includes(OWNER.password));

    assert.is((await h.api(null, 'GET', '/api/nestbox/v1/onboarding')).status, 404);
    const second = await create({ ...OWNER, username: 'second_owner', email: 'two@example.test', setup_key: KEY });
    assert.is(second.status, 404);
    assert.is(await users(h), 2);

    const headless = await runAdmin({ dataDir: h.daemon.dataDir, baseUrl: h.url }, [
      'create-account',
      '--username',
      'other',
      '--email',
      'other@example.test',
      '--password',
      'another pass 123',
      '--owner',
    ]);
    assert.is(headless.status, 1);
    assert.match(headless.stderr, /an owner account already exists/);
  } finally {
    await h.stop();
  }
});

test('wrong setup keys are counted for the whole box and throttled, a right key included', async () => {
  const h = await startSocialDaemon({ NESTBOX_SETUP_PASSPHRASE: KEY });
  try {
    const attempt = (key: string) =>
      h.api(null, 'POST', '/api/nestbox/v1/onboarding/owner', { ...OWNER, setup_key: key });
    for (let i = 1; i < 10; i += 1) assert.is((await attempt(`wrong-key-${i}`)).status, 403);
    // The tenth wrong key locks the form, as the README says.
    const over = await attempt('wrong-key-10');
    assert.is(over.status, 429);
    assert.match(over.body.error, /Too many wrong setup keys/);
    assert.ok(Number(over.headers.get('retry-after')) >= 60);
    const right = await attempt(KEY);
    assert.is(right.status, 429);
    assert.is(await users(h), 0);
    assert.ok(h.daemon.logs.some((line) => line.msg === 'setup-key attempts throttled'));
  } finally {
    await h.stop();
  }
});

test('from the setup network no key is asked: joining it took the key', async () => {
  const h = await startSocialDaemon({
    NESTBOX_SETUP_AP_ADDRESS: '127.0.0.1',
    NESTBOX_SETUP_DNS_PORT: String(await freePort()),
  });
  try {
    const open = await h.api(null, 'GET', '/api/nestbox/v1/onboarding');
    assert.equal(open.body, { owner_needed: true, setup_key_needed: false });
    const created = await h.api(null, 'POST', '/api/nestbox/v1/onboarding/owner', OWNER);
    assert.is(created.status, 200, JSON.stringify(created.body));
    assert.is((await h.api(created.body.access_token, 'GET', '/api/nestbox/v1/state')).status, 200);
  } finally {
    await h.stop();
  }
});

test.run();
