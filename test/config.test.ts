import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseCoprocTarget, withBaseUrl } from '../daemon/config.js';
import { daemonCommand, tempDir } from './helpers/paths.js';

function rejects(sources: Parameters<typeof loadConfig>[0], key: string): ConfigError {
  try {
    loadConfig(sources);
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.is((error as ConfigError).key, key);
    return error as ConfigError;
  }
  assert.unreachable(`expected ${key} to be refused`);
  throw new Error('unreachable');
}

test('defaults serve a developer machine', () => {
  const config = loadConfig({ env: {}, cwd: '/srv/box' });
  assert.is(config.dataDir, '/srv/box/data');
  assert.is(config.httpHost, '127.0.0.1');
  assert.is(config.httpPort, 8080);
  assert.equal(config.coproc, { kind: 'sim' });
  assert.is(config.mqttUrl, null);
  assert.is(config.registrations, 'closed');
  assert.is(config.streamingUrl, 'http://localhost:4000');
  assert.is(config.publicPreview, true);
});

test('the JSON file overrides defaults and the environment overrides the file', () => {
  const dir = tempDir();
  const file = join(dir.path, 'nestbox.json');
  writeFileSync(
    file,
    JSON.stringify({ http_port: 9000, mqtt_prefix: 'house/box', public_preview: false, coproc: 'esps:/dev/esps0' }),
  );
  const fromFile = loadConfig({ env: {}, file });
  assert.is(fromFile.httpPort, 9000);
  assert.is(fromFile.mqttPrefix, 'house/box');
  assert.is(fromFile.publicPreview, false);
  assert.equal(fromFile.coproc, { kind: 'esps', path: '/dev/esps0' });
  const both = loadConfig({ env: { NESTBOX_CONFIG: file, NESTBOX_HTTP_PORT: '9100', NESTBOX_PUBLIC_PREVIEW: 'true' } });
  assert.is(both.httpPort, 9100);
  assert.is(both.publicPreview, true);
  assert.is(both.mqttPrefix, 'house/box');
  dir.remove();
});

test('the streaming URL is derived from the base URL and the streaming port', () => {
  const config = loadConfig({ env: { NESTBOX_BASE_URL: 'https://box.example/', NESTBOX_STREAMING_PORT: '4443' } });
  assert.is(config.baseUrl, 'https://box.example');
  assert.is(config.streamingUrl, 'https://box.example:4443');
});

test("with the box's own HTTPS listener an https:// base URL streams on that address; a home http:// one on the streaming port", () => {
  const own = loadConfig({ env: { NESTBOX_BASE_URL: 'https://box.example', NESTBOX_HTTPS_PORT: '8443' } });
  assert.is(own.streamingUrl, 'https://box.example');
  const box = loadConfig({ env: { NESTBOX_NETWORK: 'on' } });
  assert.is(box.streamingUrl, 'http://nestbox.local:4000');
  assert.is(withBaseUrl(box, 'https://social.example.org').streamingUrl, 'https://social.example.org');
  assert.is(withBaseUrl(box, 'http://nestbox.local').streamingUrl, 'http://nestbox.local:4000');
});

test('the streaming URL may be given in the ws:// or wss:// form Mastodon takes, or as http(s)', () => {
  const url = (value: string) => loadConfig({ env: { NESTBOX_STREAMING_URL: value } }).streamingUrl;
  assert.is(url('wss://stream.box.example'), 'https://stream.box.example');
  assert.is(url('ws://127.0.0.1:4000/'), 'http://127.0.0.1:4000');
  assert.is(url('https://stream.box.example'), 'https://stream.box.example');
  assert.is(url('http://127.0.0.1:4000'), 'http://127.0.0.1:4000');
  assert.throws(() => url('ftp://stream.box.example'), /ws:\/\/, wss:\/\/, http:\/\/ or https:\/\//);
});

test('mail: no SMTP by default, an smtp(s) URL accepted, anything else refused; the sender derives from the base URL', () => {
  const plain = loadConfig({ env: { NESTBOX_BASE_URL: 'https://box.example' } });
  assert.is(plain.smtpUrl, null);
  assert.is(plain.smtpFrom, 'Nestbox <notifications@box.example>');
  assert.is(
    loadConfig({ env: { NESTBOX_SMTP_URL: 'smtps://u:p@mail.example:465' } }).smtpUrl,
    'smtps://u:p@mail.example:465',
  );
  rejects({ env: { NESTBOX_SMTP_URL: 'http://mail.example' } }, 'NESTBOX_SMTP_URL');
  rejects({ env: { NESTBOX_SMTP_FROM: '' } }, 'NESTBOX_SMTP_FROM');
});

test('sources say which keys were given and where; another base URL remakes only the defaults derived from it', () => {
  const dir = tempDir();
  try {
    const file = join(dir.path, 'settings.json');
    writeFileSync(file, JSON.stringify({ streaming_url: 'wss://stream.example' }));
    const config = loadConfig({ env: { NESTBOX_HTTP_PORT: '9000' }, file });
    assert.equal(config.sources, {
      httpPort: { name: 'NESTBOX_HTTP_PORT', source: 'environment' },
      streamingUrl: { name: 'streaming_url', source: file },
    });
    const moved = withBaseUrl(config, 'https://box.example');
    assert.is(moved.baseUrl, 'https://box.example');
    assert.is(moved.smtpFrom, 'Nestbox <notifications@box.example>');
    assert.is(moved.streamingUrl, 'https://stream.example', 'given, so kept');
    assert.is(moved.httpPort, 9000);
    const derived = withBaseUrl(loadConfig({ env: {} }), 'https://box.example');
    assert.is(derived.streamingUrl, 'https://box.example:4000');
  } finally {
    dir.remove();
  }
});

test('storage: a free-space threshold in whole megabytes (128 by default) and the SQLite sync level (full by default)', () => {
  const defaults = loadConfig({ env: {} });
  assert.is(defaults.storageMinFreeMb, 128);
  assert.is(defaults.sqliteSynchronous, 'full');
  const set = loadConfig({ env: { NESTBOX_STORAGE_MIN_FREE_MB: '0', NESTBOX_SQLITE_SYNCHRONOUS: 'normal' } });
  assert.is(set.storageMinFreeMb, 0);
  assert.is(set.sqliteSynchronous, 'normal');
  for (const value of ['-1', '1.5', 'lots', ''])
    rejects({ env: { NESTBOX_STORAGE_MIN_FREE_MB: value } }, 'NESTBOX_STORAGE_MIN_FREE_MB');
  for (const value of ['off', 'FULL', 'extra'])
    rejects({ env: { NESTBOX_SQLITE_SYNCHRONOUS: value } }, 'NESTBOX_SQLITE_SYNCHRONOUS');
});

test('reachability: HTTPS on 443 and port mapping on with the network layer, off without; ACME and echo URLs checked', () => {
  const off = loadConfig({ env: {} });
  assert.equal(
    [off.httpsPort, off.portMapping, off.acmeDirectory, off.acmeCaFile, off.addressEchoUrl],
    [null, 'off', 'https://acme-v02.api.letsencrypt.org/directory', null, null],
  );
  const on = loadConfig({ env: { NESTBOX_NETWORK: 'on' } });
  assert.equal([on.httpsPort, on.portMapping], [443, 'on']);
  const set = loadConfig({
    env: {
      NESTBOX_NETWORK: 'on',
      NESTBOX_HTTPS_PORT: '',
      NESTBOX_PORT_MAPPING: 'off',
      NESTBOX_ACME_DIRECTORY: 'https://acme.example.test:14000/dir',
      NESTBOX_ACME_CA_FILE: '/etc/nestbox/roots.pem',
      NESTBOX_ADDRESS_ECHO_URL: 'https://echo.example.test/ip',
    },
  });
  assert.equal(
    [set.httpsPort, set.portMapping, set.acmeDirectory, set.acmeCaFile, set.addressEchoUrl],
    [null, 'off', 'https://acme.example.test:14000/dir', '/etc/nestbox/roots.pem', 'https://echo.example.test/ip'],
  );
  for (const value of ['0', '70000', 'https']) rejects({ env: { NESTBOX_HTTPS_PORT: value } }, 'NESTBOX_HTTPS_PORT');
  rejects({ env: { NESTBOX_PORT_MAPPING: 'upnp' } }, 'NESTBOX_PORT_MAPPING');
  rejects({ env: { NESTBOX_ACME_DIRECTORY: 'ftp://acme.example.test/dir' } }, 'NESTBOX_ACME_DIRECTORY');
  rejects({ env: { NESTBOX_ADDRESS_ECHO_URL: 'not a url' } }, 'NESTBOX_ADDRESS_ECHO_URL');
});

test('network layer: off by default; on gives the interfaces, host name and the setup AP address with its prefix', () => {
  const off = loadConfig({ env: {} });
  assert.equal(
    [off.network, off.staIface, off.apIface, off.hostname, off.setupApAddress],
    ['off', 'ethsta0', 'ethap0', 'nestbox', null],
  );
  const on = loadConfig({ env: { NESTBOX_NETWORK: 'on' } });
  assert.equal(
    [on.network, on.setupApAddress, on.setupApPrefixLength, on.httpHost],
    ['on', '192.168.4.1', 24, '0.0.0.0'],
  );
  assert.is(loadConfig({ env: { NESTBOX_NETWORK: 'on', NESTBOX_HTTP_HOST: '::' } }).httpHost, '::');
  const custom = loadConfig({
    env: {
      NESTBOX_NETWORK: 'on',
      NESTBOX_SETUP_AP_ADDRESS: '10.9.0.1/16',
      NESTBOX_STA_IFACE: 'wlan0',
      NESTBOX_AP_IFACE: 'uap0',
      NESTBOX_HOSTNAME: 'Kitchen-Box',
    },
  });
  assert.equal(
    [custom.setupApAddress, custom.setupApPrefixLength, custom.staIface, custom.apIface, custom.hostname],
    ['10.9.0.1', 16, 'wlan0', 'uap0', 'kitchen-box'],
  );
  const bare = loadConfig({ env: { NESTBOX_SETUP_AP_ADDRESS: '192.168.7.1' } });
  assert.equal([bare.setupApAddress, bare.setupApPrefixLength], ['192.168.7.1', 24]);
  rejects({ env: { NESTBOX_NETWORK: 'yes' } }, 'NESTBOX_NETWORK');
  rejects({ env: { NESTBOX_STA_IFACE: 'a/b' } }, 'NESTBOX_STA_IFACE');
  rejects({ env: { NESTBOX_AP_IFACE: 'much-too-long-name' } }, 'NESTBOX_AP_IFACE');
  rejects({ env: { NESTBOX_HOSTNAME: 'nest.box' } }, 'NESTBOX_HOSTNAME');
  rejects({ env: { NESTBOX_HOSTNAME: '-box' } }, 'NESTBOX_HOSTNAME');
  rejects({ env: { NESTBOX_SETUP_AP_ADDRESS: '192.168.4.1/33' } }, 'NESTBOX_SETUP_AP_ADDRESS');
  rejects({ env: { NESTBOX_SETUP_AP_ADDRESS: '192.168.4.300/24' } }, 'NESTBOX_SETUP_AP_ADDRESS');
});

test('an unknown key is refused, from the file and from the environment', () => {
  const dir = tempDir();
  const file = join(dir.path, 'c.json');
  writeFileSync(file, JSON.stringify({ http_prot: 80 }));
  const error = rejects({ env: {}, file }, 'http_prot');
  assert.match(error.message, /known setting/);
  rejects({ env: { NESTBOX_HTTP_PROT: '80' } }, 'NESTBOX_HTTP_PROT');
  dir.remove();
});

test('a value of the wrong type is refused', () => {
  const dir = tempDir();
  const file = join(dir.path, 'c.json');
  writeFileSync(file, JSON.stringify({ http_port: '8080' }));
  rejects({ env: {}, file }, 'http_port');
  writeFileSync(file, JSON.stringify({ public_preview: 'yes' }));
  rejects({ env: {}, file }, 'public_preview');
  rejects({ env: { NESTBOX_HEARTBEAT_S: 'ten' } }, 'NESTBOX_HEARTBEAT_S');
  rejects({ env: { NESTBOX_PUBLIC_PREVIEW: 'maybe' } }, 'NESTBOX_PUBLIC_PREVIEW');
  dir.remove();
});

test('a port out of range is refused', () => {
  const error = rejects({ env: { NESTBOX_HTTP_PORT: '70000' } }, 'NESTBOX_HTTP_PORT');
  assert.match(error.message, /port number from 1 to 65535/);
  rejects({ env: { NESTBOX_STREAMING_PORT: '0' } }, 'NESTBOX_STREAMING_PORT');
});

test('chip recovery and the driver release: defaults, accepted values, refused ones', () => {
  const defaults = loadConfig({ env: {} });
  assert.is(defaults.espHostedRelease, null);
  assert.is(defaults.coprocResetAfterS, 120);
  assert.equal(defaults.coprocResetCommand, ['systemctl', 'reload', 'esp-hosted.service']);
  const set = loadConfig({
    env: {
      NESTBOX_ESP_HOSTED_RELEASE: 'FG-1.0.3.0.0',
      NESTBOX_COPROC_RESET_AFTER_S: '0',
      NESTBOX_COPROC_RESET_COMMAND: '  /usr/local/bin/reset-chip  --now ',
    },
  });
  assert.is(set.espHostedRelease, 'FG-1.0.3.0.0');
  assert.is(set.coprocResetAfterS, 0);
  assert.equal(set.coprocResetCommand, ['/usr/local/bin/reset-chip', '--now']);
  for (const value of ['1.0.3.0.0', 'FG-1.0.3', 'fg-1.0.3.0.0', 'FG-1.0.3.0.0-rc1', 'v1.0.0'])
    assert.match(
      rejects({ env: { NESTBOX_ESP_HOSTED_RELEASE: value } }, 'NESTBOX_ESP_HOSTED_RELEASE').message,
      /FG-1\.0\.0\.0\.0/,
    );
  for (const value of ['-1', '86401', '2.5', 'soon'])
    rejects({ env: { NESTBOX_COPROC_RESET_AFTER_S: value } }, 'NESTBOX_COPROC_RESET_AFTER_S');
  rejects({ env: { NESTBOX_COPROC_RESET_COMMAND: '   ' } }, 'NESTBOX_COPROC_RESET_COMMAND');
});

test('an unparsable NESTBOX_COPROC is refused', () => {
  for (const value of [
    'serial',
    'serial:ttyAMA0',
    'serial:/dev/ttyAMA0?baud=12',
    'serial:/dev/ttyAMA0?speed=9600',
    'usb:/dev/x',
    'esps:/dev/esps0?baud=1',
  ]) {
    rejects({ env: { NESTBOX_COPROC: value } }, 'NESTBOX_COPROC');
  }
  assert.equal(parseCoprocTarget('serial:/dev/ttyAMA0?baud=921600'), {
    kind: 'serial',
    path: '/dev/ttyAMA0',
    baud: 921600,
  });
  assert.equal(parseCoprocTarget('serial:/dev/ttyUSB0'), { kind: 'serial', path: '/dev/ttyUSB0', baud: 921600 });
});

test('NESTBOX_COPROC=none: an instance without a box, whose network layer stays off', () => {
  assert.equal(loadConfig({ env: { NESTBOX_COPROC: 'none' } }).coproc, { kind: 'none' });
  const dir = tempDir();
  const file = join(dir.path, 'nestbox.json');
  writeFileSync(file, JSON.stringify({ coproc: 'none', network: 'on' }));
  const error = rejects({ env: {}, file }, 'network');
  assert.match(error.message, /off when NESTBOX_COPROC is none/);
  assert.is(error.source, file);
  dir.remove();
  // `none` names no device: the tools that open one are not handed it as a path.
  assert.is(parseCoprocTarget('none'), undefined);
});

test('other bad values: enums, URLs, cron, passphrase, missing or broken file', () => {
  rejects({ env: { NESTBOX_REGISTRATIONS: 'sometimes' } }, 'NESTBOX_REGISTRATIONS');
  rejects({ env: { NESTBOX_MQTT_URL: 'http://broker' } }, 'NESTBOX_MQTT_URL');
  rejects({ env: { NESTBOX_BASE_URL: 'box.local' } }, 'NESTBOX_BASE_URL');
  rejects({ env: { NESTBOX_BACKUP_SCHEDULE: 'nightly' } }, 'NESTBOX_BACKUP_SCHEDULE');
  rejects({ env: { NESTBOX_SETUP_PASSPHRASE: 'short' } }, 'NESTBOX_SETUP_PASSPHRASE');
  rejects({ env: { NESTBOX_MQTT_PREFIX: 'a/#' } }, 'NESTBOX_MQTT_PREFIX');
  rejects({ env: {}, file: '/nonexistent/nestbox.json' }, '--config');
  const dir = tempDir();
  const file = join(dir.path, 'broken.json');
  writeFileSync(file, '{"http_port": ');
  rejects({ env: {}, file }, '--config');
  writeFileSync(file, '[1,2]');
  rejects({ env: {}, file }, '--config');
  dir.remove();
});

test("NESTBOX_WIFI_COUNTRY: two letters (upper-cased), empty for the firmware's own; anything else refused", () => {
  assert.is(loadConfig({ env: {} }).wifiCountry, null);
  assert.is(loadConfig({ env: { NESTBOX_WIFI_COUNTRY: 'de' } }).wifiCountry, 'DE');
  assert.is(loadConfig({ env: { NESTBOX_WIFI_COUNTRY: '' } }).wifiCountry, null);
  for (const bad of ['D', 'DEU', 'D3', '01', 'de ch'])
    assert.match(
      rejects({ env: { NESTBOX_WIFI_COUNTRY: bad } }, 'NESTBOX_WIFI_COUNTRY').message,
      /two-letter country code/,
    );
  assert.is(loadConfig({ env: { NESTBOX_SIM_FIRMWARE: 'current' } }).simFirmware, 'current');
  rejects({ env: { NESTBOX_SIM_FIRMWARE: 'newest' } }, 'NESTBOX_SIM_FIRMWARE');
});

test('the daemon exits with code 2 and one line naming key, value and what is allowed', () => {
  const launch = daemonCommand();
  const result = spawnSync(launch.command, launch.args, {
    env: { ...launch.env, PATH: process.env.PATH, NESTBOX_HTTP_PORT: '99999' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  assert.is(result.status, 2);
  const lines = result.stderr.trim().split('\n');
  assert.is(lines.length, 1);
  assert.match(lines[0], /NESTBOX_HTTP_PORT/);
  assert.match(lines[0], /99999/);
  assert.match(lines[0], /1 to 65535/);
  assert.is(result.stdout, '');
});

test.run();

test('the daemon refuses NESTBOX_NETWORK=on with NESTBOX_COPROC=none in one line and exits 2', () => {
  const launch = daemonCommand();
  const result = spawnSync(launch.command, launch.args, {
    env: { ...launch.env, PATH: process.env.PATH, NESTBOX_COPROC: 'none', NESTBOX_NETWORK: 'on' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  assert.is(result.status, 2);
  const lines = result.stderr.trim().split('\n');
  assert.is(lines.length, 1);
  assert.match(lines[0], /NESTBOX_NETWORK="on" \(environment\)/);
  assert.match(lines[0], /off when NESTBOX_COPROC is none/);
  assert.is(result.stdout, '');
});
