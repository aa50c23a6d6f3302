/**
 * The box's label: `npm run admin -- label` on a real daemon's database writes a PNG whose QR code
 * (read from its pixels) joins the setup AP the daemon runs, with the key it uses; the key survives
 * a restart, `--new-key` replaces it, and the daemon never logs it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wifiJoinPayload } from '../../daemon/connectivity/setup-label.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { decodeQrPng } from '../helpers/qr.js';
import { tempDir } from '../helpers/paths.js';
import { setupAp } from '../helpers/setup-ap.js';
import { startSocialDaemon } from '../helpers/social.js';

test('the WIFI: payload escapes the format’s separators in the name and the key', () => {
  assert.is(wifiJoinPayload('Nestbox-AB12', 'abcd-efgh-jkmn'), 'WIFI:T:WPA;S:Nestbox-AB12;P:abcd-efgh-jkmn;;');
  assert.is(wifiJoinPayload('a\\b;c,d:e"f', 'k;e,y'), 'WIFI:T:WPA;S:a\\\\b\\;c\\,d\\:e\\"f;P:k\\;e\\,y;;');
});

/** The simulated coprocessor's clocks run fast: each start reaches the setup AP sooner. */
const FAST_COPROC = { NESTBOX_COPROC_TIME_SCALE: '20' };

test('the label joins the setup AP the daemon runs; the key is kept across restarts and replaced on demand', async () => {
  const data = tempDir('nestbox-label-');
  const out = tempDir('nestbox-label-out-');
  let h = await startSocialDaemon(FAST_COPROC, { dataDir: data.path, keepDataDir: true });
  try {
    // Restarts keep the address: the instance keeps the base URL it began with.
    const again = { dataDir: data.path, keepDataDir: true, port: h.daemon.port };
    const owner = await h.account('boss', { owner: true, scopes: 'admin:read admin:write' });
    const ap = await setupAp(h, owner.token);
    assert.match(ap.ssid, /^Nestbox-[0-9A-F]{4}$/);
    const target = { dataDir: data.path, baseUrl: h.url };
    const printed = await runAdmin(target, ['label', '--out', out.path]);
    assert.is(printed.status, 0, printed.stderr);
    const png = readFileSync(join(out.path, 'nestbox-label.png'));
    assert.is(decodeQrPng(png), `WIFI:T:WPA;S:${ap.ssid};P:${ap.passphrase};;`);
    const svg = readFileSync(join(out.path, 'nestbox-label.svg'), 'utf8');
    for (const text of [ap.ssid, ap.passphrase, `${h.url}/dashboard`]) assert.ok(svg.includes(text), text);
    assert.not.ok(JSON.stringify(h.daemon.logs).includes(ap.passphrase), 'the key is in the log');

    await h.stop();
    h = await startSocialDaemon(FAST_COPROC, again);
    const token = await h.token('boss', 'admin:read');
    assert.equal(await setupAp(h, token), ap);

    const replaced = await runAdmin(target, ['label', '--out', out.path, '--new-key']);
    assert.is(replaced.status, 0, replaced.stderr);
    assert.match(replaced.stdout, /restart the daemon/);
    const payload = decodeQrPng(readFileSync(join(out.path, 'nestbox-label.png')));
    const newKey = /;P:([^;]+);;$/.exec(payload)![1];
    assert.is.not(newKey, ap.passphrase);
    await h.stop();
    h = await startSocialDaemon(FAST_COPROC, again);
    assert.equal(await setupAp(h, await h.token('boss', 'admin:read')), { ssid: ap.ssid, passphrase: newKey });
    assert.not.ok(JSON.stringify(h.daemon.logs).includes(newKey), 'the new key is in the log');

    const refused = await runAdmin(target, ['label', '--out', out.path, '--new-key'], {
      NESTBOX_SETUP_PASSPHRASE: 'set-by-the-site',
    });
    assert.is(refused.status, 1);
    assert.match(refused.stderr, /NESTBOX_SETUP_PASSPHRASE sets the key/);
  } finally {
    await h.stop();
    data.remove();
    out.remove();
  }
});

test('before the daemon has met the coprocessor, the label says what to do instead of printing a wrong name', async () => {
  const data = tempDir('nestbox-label-fresh-');
  try {
    const result = await runAdmin({ dataDir: data.path, baseUrl: 'http://nestbox.test' }, ['label']);
    assert.is(result.status, 1);
    assert.match(result.stderr, /start the daemon once/);
  } finally {
    data.remove();
  }
});

test.run();
