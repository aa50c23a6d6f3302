import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NetworkInputError, parseNetworkInput, ssidText } from '../../daemon/connectivity/network-input.js';
import { NetworksRepo } from '../../daemon/connectivity/networks-repo.js';
import { loadSetupPassphrase, setupApSsid } from '../../daemon/connectivity/setup-identity.js';
import { ENGINES, EngineDatabases } from '../helpers/engines.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

const refused = (body: unknown): NetworkInputError => {
  try {
    parseNetworkInput(body);
  } catch (error) {
    return error as NetworkInputError;
  }
  throw new Error('accepted');
};

test('passphrases: 8–63 printable ASCII characters or 64 hex digits, or empty for an open network', () => {
  assert.is(parseNetworkInput({ ssid: 'a', password: '12345678' }).passphrase, '12345678');
  assert.is(parseNetworkInput({ ssid: 'a', password: 'x'.repeat(63) }).passphrase.length, 63);
  assert.is(parseNetworkInput({ ssid: 'a', password: 'AbCdEf'.padEnd(64, '0') }).passphrase.length, 64);
  assert.is(parseNetworkInput({ ssid: 'a', password: '' }).passphrase, '');
  assert.is(parseNetworkInput({ ssid: 'a', password: ` !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~` }).passphrase.length, 33);
  assert.match(refused({ ssid: 'a', password: '1234567' }).message, /8 to 63 characters .* has 7/);
  assert.match(refused({ ssid: 'a', password: 'x'.repeat(64) }).message, /has 64/);
  assert.match(refused({ ssid: 'a', password: 'pässword1' }).message, /ASCII/);
  assert.is(refused({ ssid: 'a', password: 'tab\there1' }).field, 'password');
  assert.is(refused({ ssid: 'a', password: 12345678 }).field, 'password');
});

test('SSIDs are bytes: UTF-8 text or hex, 1–32 bytes, not the all-zero placeholder of a hidden network', () => {
  assert.equal([...parseNetworkInput({ ssid: 'Café' }).ssid], [0x43, 0x61, 0x66, 0xc3, 0xa9]);
  assert.equal([...parseNetworkInput({ ssid_hex: 'ff00fe' }).ssid], [0xff, 0x00, 0xfe]);
  assert.is(parseNetworkInput({ ssid: '🐦'.repeat(8) }).ssid.length, 32);
  assert.match(refused({ ssid: '🐦'.repeat(9) }).message, /at most 32 bytes; this one is 36/);
  assert.match(refused({ ssid_hex: '000000' }).message, /hidden network/);
  assert.is(refused({ ssid_hex: 'abc' }).field, 'ssid_hex');
  assert.is(refused({ ssid: '' }).field, 'ssid');
  assert.is(refused({}).field, 'ssid');
  assert.is(refused({ ssid: 'a', hidden: 'maybe' }).field, 'hidden');
  assert.is(ssidText(Uint8Array.from([0xff, 0x41, 0x00])), 'ÿA\\x00');
  assert.is(ssidText(Uint8Array.from(Buffer.from('Caf\xe9-Gast', 'latin1'))), 'Café-Gast');
  assert.is(ssidText(Uint8Array.from([0x61, 0x5c, 0x0a, 0x85])), 'a\\x5c\\x0a\\x85');
  assert.is(ssidText(new TextEncoder().encode('Café <b>')), 'Café <b>');
});

for (const engine of ENGINES)
  test(`the saved-networks repo keeps SSID bytes exactly, orders by priority and flags refused passwords (${engine})`, async () => {
    const db = await databases.get(engine);
    const repo = new NetworksRepo(db);
    const odd = Uint8Array.from([0xff, 0x00, 0x41]);
    const first = await repo.save({ ssid: odd, passphrase: 'secret-one', hidden: true }, false);
    const second = await repo.save({ ssid: new TextEncoder().encode('Home'), passphrase: '', hidden: false }, false);
    const top = await repo.save(
      { ssid: new TextEncoder().encode('Phone'), passphrase: 'hotspot-pw', hidden: false },
      true,
    );
    assert.equal(
      (await repo.list()).map((n) => n.id),
      [top.id, first.id, second.id],
    );
    assert.equal([...(await repo.get(first.id))!.ssid], [0xff, 0x00, 0x41]);
    assert.ok(await repo.findBySsid(odd));
    assert.not.ok(await repo.recordAuthFailure(first.id, 2));
    assert.ok(await repo.recordAuthFailure(first.id, 2));
    assert.equal(
      (await repo.candidates()).map((n) => n.id),
      [top.id, second.id],
    );
    const again = await repo.save({ ssid: odd, passphrase: 'secret-two', hidden: true }, false);
    assert.is(again.id, first.id, 'same SSID: the password is replaced, not a second entry');
    assert.not.ok(again.passwordRefused);
    assert.is(again.authFailures, 0);
    assert.not.ok(await repo.reorder([top.id, first.id]));
    assert.not.ok(await repo.reorder([top.id, top.id, second.id]));
    assert.ok(await repo.reorder([second.id, first.id, top.id]));
    assert.equal(
      (await repo.list()).map((n) => n.id),
      [second.id, first.id, top.id],
    );
    await repo.recordSuccess(second.id);
    assert.ok((await repo.get(second.id))!.lastSuccessAt);
    assert.ok(await repo.remove(top.id));
    assert.not.ok(await repo.remove(top.id));
  });

for (const engine of ENGINES)
  test(`the setup passphrase is generated once per device and kept; the configured one wins (${engine})`, async () => {
    const db = await databases.get(engine);
    const generated = await loadSetupPassphrase(db, null);
    assert.match(generated, /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    assert.is(await loadSetupPassphrase(db, null), generated);
    assert.is(await loadSetupPassphrase(db, 'configured-pass'), 'configured-pass');
    assert.is(setupApSsid('24:0a:c4:12:ab:cd'), 'Nestbox-ABCD');
  });

test.run();
