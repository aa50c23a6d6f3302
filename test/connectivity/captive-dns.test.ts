import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSocket } from 'node:dgram';
import dnsPacket from 'dns-packet';
import { CaptiveDns, captiveDnsDuringSetup } from '../../daemon/connectivity/captive-dns.js';
import { DeviceState, initialDeviceState } from '../../daemon/device/state.js';
import { Logger, silentLogger } from '../../daemon/log/logger.js';

/** Sends one datagram to the responder and waits for the answer (or null after a short while). */
function ask(port: number, message: Buffer, waitMs = 300): Promise<dnsPacket.Packet | null> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      resolve(null);
    }, waitMs);
    socket.on('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(dnsPacket.decode(reply));
    });
    socket.send(message, port, '127.0.0.1');
  });
}

const query = (name: string, type: 'A' | 'AAAA' | 'TXT', id = 4242) =>
  dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name, class: 'IN' }] });

test('every A query gets the soft-AP address with TTL 0; AAAA gets an empty answer at once', async () => {
  const dns = new CaptiveDns({ address: '127.0.0.1', port: 0, log: silentLogger });
  await dns.start();
  try {
    const a = await ask(dns.port!, query('connectivitycheck.gstatic.com', 'A'));
    assert.is(a!.id, 4242);
    assert.is(a!.type, 'response');
    assert.equal(
      a!.answers!.map((answer: any) => [answer.name, answer.type, answer.ttl, answer.data]),
      [['connectivitycheck.gstatic.com', 'A', 0, '127.0.0.1']],
    );
    assert.ok((a!.flags! & dnsPacket.AUTHORITATIVE_ANSWER) !== 0);
    const aaaa = await ask(dns.port!, query('captive.apple.com', 'AAAA', 7));
    assert.is(aaaa!.id, 7);
    assert.equal(aaaa!.answers, []);
    assert.is((aaaa as { rcode?: string }).rcode, 'NOERROR');
  } finally {
    await dns.stop();
  }
});

test('garbage datagrams are counted and ignored; the responder keeps answering', async () => {
  const dns = new CaptiveDns({ address: '127.0.0.1', port: 0, log: silentLogger });
  await dns.start();
  try {
    assert.is(await ask(dns.port!, Buffer.from([1, 2, 3]), 150), null);
    assert.is(dns.malformed, 1);
    assert.ok(await ask(dns.port!, query('example.org', 'A')));
  } finally {
    await dns.stop();
  }
});

test('the responder runs only while the setup AP is up', async () => {
  const device = new DeviceState(initialDeviceState('test', 'test'));
  const dns = new CaptiveDns({ address: '127.0.0.1', port: 0, log: silentLogger });
  const stop = captiveDnsDuringSetup(device, dns, silentLogger);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
  await settle();
  assert.not.ok(dns.running);
  device.update({ softap: { active: true } });
  await settle();
  assert.ok(dns.running);
  device.update({ softap: { active: false } });
  await settle();
  assert.not.ok(dns.running);
  await stop();
});

test('an address the host does not have: one warning, no socket kept, and the next start tries again', async () => {
  const lines: Array<{ level: string; msg: string; error?: { code?: string } }> = [];
  const log = new Logger('debug', {}, (line) => lines.push(JSON.parse(line)));
  const device = new DeviceState(initialDeviceState('test', 'test'));
  // TEST-NET-1 (RFC 5737): never a local address, so the bind fails before any datagram could leave.
  const dns = new CaptiveDns({ address: '192.0.2.1', port: 0, log });
  const stop = captiveDnsDuringSetup(device, dns, log);
  device.update({ softap: { active: true } });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
  await settle();
  assert.not.ok(dns.running);
  assert.equal(
    lines.filter((line) => line.level !== 'debug').map((line) => [line.level, line.msg, line.error?.code]),
    [['warn', 'captive DNS not started', 'EADDRNOTAVAIL']],
  );
  device.update({ softap: { active: false } });
  device.update({ softap: { active: true } });
  await settle();
  assert.is(lines.filter((line) => line.msg === 'captive DNS not started').length, 2, 'tried again, once more');
  assert.is(lines.length, 2);
  await stop();
});

test.run();
