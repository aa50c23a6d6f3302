import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Logger } from '../../daemon/log/logger.js';
import { loadConfig, describeConfig } from '../../daemon/config.js';

function capture(level: 'debug' | 'info' = 'debug') {
  const lines: string[] = [];
  return { log: new Logger(level, { service: 't' }, (line) => lines.push(line)), lines };
}

test('each event is one JSON line with time, level and message', () => {
  const { log, lines } = capture();
  log.info('hello', { n: 1 });
  assert.is(lines.length, 1);
  const record = JSON.parse(lines[0]);
  assert.is(record.level, 'info');
  assert.is(record.msg, 'hello');
  assert.is(record.service, 't');
  assert.is(record.n, 1);
  assert.ok(!Number.isNaN(Date.parse(record.time)));
});

test('passwords, tokens and Wi-Fi passphrases never reach the log, however deep', () => {
  const { log, lines } = capture();
  const secrets = ['s3cret-pass', 'tok-abc123', 'wifi-passphrase-xyz', 'Bearer zzz', 'client-secret-1', 'pwd-42'];
  log.info('connect', {
    password: secrets[0],
    request: { headers: { authorization: secrets[3] }, body: { access_token: secrets[1], client_secret: secrets[4] } },
    network: { ssid: 'HomeNet', passphrase: secrets[2] },
    req: { pwd: secrets[5] },
    list: [{ token: secrets[1] }],
  });
  log.child({ setup_passphrase: secrets[2] }).warn('child keeps redaction');
  const out = lines.join('\n');
  for (const secret of secrets) assert.not.ok(out.includes(secret), `${secret} leaked`);
  assert.ok(out.includes('HomeNet'), 'ordinary fields stay');
  assert.ok(out.includes('[redacted]'));
});

test('errors are logged with their message, not lost', () => {
  const { log, lines } = capture();
  log.error('failed', { error: new Error('disk full') });
  assert.is(JSON.parse(lines[0]).error.message, 'disk full');
});

test('levels below the configured one are dropped', () => {
  const { log, lines } = capture('info');
  log.debug('noise');
  log.warn('signal');
  assert.is(lines.length, 1);
});

test('the start-up config description carries no MQTT password or setup passphrase', () => {
  const config = loadConfig({
    env: { NESTBOX_MQTT_PASSWORD: 'mqtt-pw-123', NESTBOX_SETUP_PASSPHRASE: 'setup-pass-456' },
  });
  const { log, lines } = capture();
  log.info('starting', { config: describeConfig(config) });
  assert.not.match(lines[0], /mqtt-pw-123|setup-pass-456/);
});

test.run();
