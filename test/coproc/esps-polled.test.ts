/**
 * The esps transport on a device node that is not a terminal (a FIFO here, like the driver's
 * /dev/esps0: non-blocking reads answer EAGAIN, poll works): bytes arrive, and a quiet device
 * holds no thread of libuv's pool, so file and database work go on and the process ends at once
 * after close (a blocking read held the pool's thread until the next byte).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ESPS_MAX_WRITE, EspsTransport } from '../../daemon/coproc/transport/esps.js';
import { encodeTlv } from '../../daemon/coproc/framing/tlv.js';
import { CoprocError } from '../../daemon/coproc/api.js';
import { openCoprocLink, waitForLink } from '../../daemon/coproc/link.js';
import { Logger, silentLogger } from '../../daemon/log/logger.js';
import { DIST, tempDir } from '../helpers/paths.js';

function fifoIn(dir: string): string {
  const path = join(dir, 'esps0');
  execFileSync('mkfifo', [path]);
  return path;
}

test('bytes written to the device node arrive, in order, as they come', async () => {
  const dir = tempDir();
  const transport = new EspsTransport(fifoIn(dir.path), { log: silentLogger });
  try {
    const up = new Promise<void>((resolve) => transport.once('up', () => resolve()));
    const received: Buffer[] = [];
    transport.on('data', (chunk: Buffer) => received.push(chunk));
    transport.start();
    await up;
    const device = openSync(join(dir.path, 'esps0'), 'w');
    try {
      writeSync(device, Buffer.from([1, 2, 3]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      writeSync(device, Buffer.from([4, 5]));
      const deadline = Date.now() + 5000;
      while (Buffer.concat(received).length < 5 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      closeSync(device);
    }
    assert.equal([...Buffer.concat(received)], [1, 2, 3, 4, 5]);
  } finally {
    await transport.close();
    dir.remove();
  }
});

test("a message over the driver's write limit is refused (an event, nothing written), never retried; the next one goes through", async () => {
  const dir = tempDir();
  // Opened read-write, the FIFO hands the transport back what it writes: what reached the "driver".
  const transport = new EspsTransport(fifoIn(dir.path), { log: silentLogger });
  try {
    const up = new Promise<void>((resolve) => transport.once('up', () => resolve()));
    const received: Buffer[] = [];
    const refused: string[] = [];
    transport.on('data', (chunk: Buffer) => received.push(chunk));
    transport.on('refused', (reason) => refused.push(reason));
    transport.start();
    await up;
    assert.is(ESPS_MAX_WRITE, 8172);
    assert.ok(transport.write(Buffer.alloc(ESPS_MAX_WRITE + 1, 0xaa)));
    assert.ok(transport.write(Buffer.from([7, 8, 9])));
    const deadline = Date.now() + 5000;
    while (Buffer.concat(received).length < 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(refused, [`a ${ESPS_MAX_WRITE + 1}-byte message is more than the driver's 8172-byte limit`]);
    assert.equal([...Buffer.concat(received)], [7, 8, 9]);
  } finally {
    await transport.close();
    dir.remove();
  }
});

test('what a previous opener left unread is dropped before the link is up; what comes after arrives', async () => {
  const dir = tempDir();
  const path = fifoIn(dir.path);
  // Held open read-write, the FIFO keeps what is written to it, like the driver's ring after a
  // previous opener closed /dev/esps0 with bytes unread: a stale answer and part of an event.
  const previous = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  const stale = Buffer.concat([
    encodeTlv('ctrlResp', Buffer.from([0x08, 0x02, 0x10, 0xc9, 0x01])),
    encodeTlv('ctrlEvnt', Buffer.alloc(40, 0x11)).subarray(0, 20),
  ]);
  writeSync(previous, stale);
  const lines: Array<Record<string, unknown>> = [];
  const log = new Logger('info', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  const transport = new EspsTransport(path, { log });
  try {
    const received: Buffer[] = [];
    transport.on('data', (chunk: Buffer) => received.push(chunk));
    const up = new Promise<void>((resolve) => transport.once('up', () => resolve()));
    transport.start();
    await up;
    writeSync(previous, Buffer.from([9, 8, 7]));
    const deadline = Date.now() + 5000;
    while (Buffer.concat(received).length < 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal([...Buffer.concat(received)], [9, 8, 7]);
    const drained = lines.find((line) => line.msg === 'dropped bytes a previous opener of the device left unread');
    assert.is(drained?.bytes, stale.length);
  } finally {
    await transport.close();
    closeSync(previous);
    dir.remove();
  }
});

test('an answer longer than the driver ring that loses its tail is never parsed: the request fails at once as truncated', async () => {
  const dir = tempDir();
  const path = fifoIn(dir.path);
  const device = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  const { client } = openCoprocLink({ kind: 'esps', path }, { log: silentLogger });
  try {
    await waitForLink(client, 5000);
    const asked = Date.now();
    const scan = client.scan().then(
      () => null,
      (error: unknown) => error as CoprocError,
    );
    // A GetAPScanList answer announcing 12000 bytes (more than the 8191 the ring holds) of which
    // only the first 8000 arrive: what esp_serial_data_received leaves when the ring is full.
    const frame = encodeTlv(
      'ctrlResp',
      Buffer.concat([Buffer.from([0x08, 0x02, 0x10, 0xcd, 0x01]), Buffer.alloc(11995, 0x22)]),
    );
    writeSync(device, frame.subarray(0, 8000));
    const error = await scan;
    assert.instance(error, CoprocError);
    assert.is(error!.kind, 'truncated');
    assert.match(error!.message, /GetAPScanList: the answer was cut short/);
    assert.ok(Date.now() - asked < 10_000, 'long before the scan timeout');
    // Bytes lost from the middle, the next event's bytes filling the frame: it does not decode.
    const again = client.scan().then(
      () => null,
      (failure: unknown) => failure as CoprocError,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const event = encodeTlv('ctrlEvnt', Buffer.from([0x08, 0x03, 0x10, 0xae, 0x02, 0xf2, 0x12, 0x00]));
    const head = Buffer.from([0x08, 0x02, 0x10, 0xcd, 0x01]);
    const mixed = encodeTlv('ctrlResp', Buffer.concat([head, event]));
    writeSync(device, mixed);
    const damaged = await again;
    assert.is(damaged?.kind, 'truncated');
    assert.match(damaged!.message, /undecodable answer/);
  } finally {
    await client.close();
    closeSync(device);
    dir.remove();
  }
});

test('a quiet device holds no pool thread: with a pool of one, file work goes on, and close lets the process end', async () => {
  const dir = tempDir();
  try {
    const device = fifoIn(dir.path);
    const script = `
      import { stat } from 'node:fs/promises';
      import { EspsTransport } from ${JSON.stringify(join(DIST, 'daemon/coproc/transport/esps.js'))};
      import { silentLogger } from ${JSON.stringify(join(DIST, 'daemon/log/logger.js'))};
      const transport = new EspsTransport(process.env.DEVICE, { log: silentLogger });
      const up = new Promise((resolve) => transport.once('up', resolve));
      transport.start();
      await up;
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < 3; i++) await stat(process.env.DEVICE);
      process.stdout.write('file work done\\n');
      await transport.close();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, UV_THREADPOOL_SIZE: '1', DEVICE: device },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    // A bound on a hang, not a speed target: a held pool thread would stall the child for good.
    const hung = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(hung);
    assert.is(out, 'file work done\n');
    assert.is(code, 0);
  } finally {
    dir.remove();
  }
});

test.run();
