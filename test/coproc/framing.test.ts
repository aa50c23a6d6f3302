import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFraming, type Endpoint, type FrameFault } from '../../daemon/coproc/framing/index.js';
import {
  checksum,
  encodeFrame,
  FLAG_MORE_FRAGMENT,
  fragment,
  PayloadHeaderDecoder,
} from '../../daemon/coproc/framing/payload-header.js';
import { decodePrivInit, encodePrivInit } from '../../daemon/coproc/framing/priv-init.js';
import { encodeTlv, TlvStreamDecoder } from '../../daemon/coproc/framing/tlv.js';
import { INTER_BYTE_TIMEOUT_MS } from '../../daemon/coproc/framing/incremental.js';

function recorder() {
  const frames: Array<[Endpoint, string]> = [];
  const faults: FrameFault[] = [];
  return {
    frames,
    faults,
    handlers: {
      frame: (e: Endpoint, d: Buffer) => {
        frames.push([e, d.toString('hex')]);
      },
      fault: (f: FrameFault) => {
        faults.push(f);
      },
    },
  };
}

const pb = (n: number, fill = 0x41) => Buffer.alloc(n, fill);

test('TLV: frames fed one byte at a time come out whole', () => {
  const r = recorder();
  const decoder = new TlvStreamDecoder(r.handlers, { maxData: 4082 });
  const stream = Buffer.concat([
    encodeTlv('ctrlResp', pb(3)),
    encodeTlv('ctrlEvnt', pb(0)),
    encodeTlv('ctrlResp', pb(300, 1)),
  ]);
  for (const byte of stream) decoder.push(Buffer.from([byte]));
  assert.equal(
    r.frames.map(([e, d]) => [e, d.length / 2]),
    [
      ['ctrlResp', 3],
      ['ctrlEvnt', 0],
      ['ctrlResp', 300],
    ],
  );
  assert.equal(r.faults, []);
  assert.is(decoder.pending, 0);
});

test('TLV: garbage before and between frames is skipped, counted, and the next frame is found', () => {
  const r = recorder();
  const decoder = new TlvStreamDecoder(r.handlers, { maxData: 4082 });
  decoder.push(
    Buffer.concat([
      Buffer.from('zz\x01\x08\x00ctr', 'latin1'),
      encodeTlv('ctrlResp', pb(2)),
      Buffer.from([1, 1, 1, 2]),
      encodeTlv('ctrlEvnt', pb(1)),
    ]),
  );
  assert.equal(
    r.frames.map(([e]) => e),
    ['ctrlResp', 'ctrlEvnt'],
  );
  assert.ok(r.faults.filter((f) => f === 'garbage').length >= 2);
});

test('TLV: an unknown endpoint name is refused and the parser resynchronises', () => {
  const r = recorder();
  const decoder = new TlvStreamDecoder(r.handlers, { maxData: 4082 });
  const bad = Buffer.from(encodeTlv('ctrlResp', pb(4)));
  bad.write('ctrlXxxx', 3, 'ascii');
  decoder.push(Buffer.concat([bad, encodeTlv('ctrlResp', pb(5))]));
  assert.equal(
    r.frames.map(([, d]) => d.length / 2),
    [5],
  );
  assert.ok(r.faults.includes('bad_endpoint'));
});

test('TLV: a frame longer than the limit is rejected from its header, before its data arrives', () => {
  const r = recorder();
  const decoder = new TlvStreamDecoder(r.handlers, { maxData: 4082 });
  const header = encodeTlv('ctrlResp', pb(0));
  header.writeUInt16LE(60000, 12);
  decoder.push(header);
  assert.ok(r.faults.includes('too_long'));
  assert.ok(decoder.pending < 14, 'nothing is held for the oversized frame');
  decoder.push(encodeTlv('ctrlEvnt', pb(1)));
  assert.equal(r.frames.length, 1);
});

test('TLV: a partial frame that waits longer than the inter-byte timeout is given up, and the frames it swallowed are found', () => {
  const r = recorder();
  const decoder = new TlvStreamDecoder(r.handlers, { maxData: 4082 });
  const lie = encodeTlv('ctrlResp', pb(0));
  lie.writeUInt16LE(3000, 12); // a length nothing will fill
  const t0 = performance.now();
  decoder.push(lie, t0);
  decoder.push(encodeTlv('ctrlResp', pb(5)), t0 + 10);
  assert.equal(r.frames, [], 'still inside the lie');
  decoder.push(encodeTlv('ctrlResp', pb(6)), t0 + INTER_BYTE_TIMEOUT_MS + 100);
  assert.equal(
    r.frames.map(([, d]) => d.length / 2),
    [5, 6],
  );
  assert.ok(r.faults.includes('truncated'));
  decoder.reset();
});

test('payload header: the same inter-byte timeout for a header whose length is never filled', () => {
  const lens: number[] = [];
  const faults: FrameFault[] = [];
  const decoder = new PayloadHeaderDecoder({ packet: (h) => lens.push(h.len), fault: (f) => faults.push(f) });
  const frame = (n: number) => encodeFrame({ ifType: 2, ifNum: 0, flags: 0, seq: 1, packetType: 0 }, pb(n));
  const lie = frame(0);
  lie.writeUInt16LE(1400, 2);
  const t0 = performance.now();
  decoder.push(lie, t0);
  decoder.push(frame(5), t0 + 10);
  assert.equal(lens, []);
  decoder.push(frame(6), t0 + INTER_BYTE_TIMEOUT_MS + 100);
  assert.equal(lens, [5, 6]);
  assert.ok(faults.includes('truncated'));
  decoder.reset();
});

test("payload header: the firmware's PRIV INIT for an ESP32, checksum 0x00de", () => {
  const frame = encodeFrame({ ifType: 4, ifNum: 0, flags: 0, seq: 0, packetType: 0 }, encodePrivInit());
  assert.is(frame.toString('hex'), '04000e000c00de0000000000' + '000c02010001010a0001a0030100');
  const zeroed = Buffer.from(frame);
  zeroed.writeUInt16LE(0, 6);
  assert.is(checksum(zeroed), 0xde);
  assert.equal(decodePrivInit(frame.subarray(12)), { chipId: 0, capabilities: 0xa0, spiClockMhz: 10, fwVersion: null });
});

test('PRIV INIT of the current firmware: FW_DATA (tag 4) carries the project name and five version numbers', () => {
  const init = { chipId: 0x05, capabilities: 0xa0, spiClockMhz: 10, fwVersion: { name: 'FG', parts: [1, 0, 3, 0, 0] } };
  const payload = encodePrivInit(init);
  // FW_DATA: tag 4, length 8 (char project_name[3], then major1, major2, minor, patch1, patch2).
  assert.ok(payload.toString('hex').endsWith('0408' + '464700' + '0100030000'));
  assert.equal(decodePrivInit(payload), init);
  // A FW_DATA of the wrong size is ignored, the rest still read.
  const odd = Buffer.from([0, 7, 2, 1, 0x05, 4, 2, 0x46, 0x47]);
  assert.equal(decodePrivInit(odd), { chipId: 5, capabilities: null, spiClockMhz: null, fwVersion: null });
});

test('payload header: the host sends a 4021-byte message as 3 fragments sharing one seq_num, MORE_FRAGMENT on all but the last', () => {
  const host = createFraming('serial', 'host', recorder().handlers);
  const parse = (bytes: Buffer) => {
    const packets: Array<{ seq: number; flags: number; len: number }> = [];
    new PayloadHeaderDecoder({
      packet: (h) => packets.push({ seq: h.seq, flags: h.flags, len: h.len }),
      fault: () => assert.unreachable('fault'),
    }).push(bytes);
    return packets;
  };
  const first = parse(host.encode('ctrlResp', pb(4007)));
  assert.equal(first, [
    { seq: 1, flags: FLAG_MORE_FRAGMENT, len: 1500 },
    { seq: 1, flags: FLAG_MORE_FRAGMENT, len: 1500 },
    { seq: 1, flags: 0, len: 1021 },
  ]);
  assert.equal(
    parse(host.encode('ctrlResp', pb(10))).map((p) => p.seq),
    [2],
  );
  const device = createFraming('serial', 'device', recorder().handlers);
  assert.equal(
    parse(device.encode('ctrlResp', pb(4007))).map((p) => p.seq),
    [1, 2, 3],
    'the device numbers each fragment',
  );
});

test('payload header: fragments reassemble through garbage and byte-at-a-time delivery', () => {
  const device = createFraming('serial', 'device', recorder().handlers);
  const r = recorder();
  const host = createFraming('serial', 'host', r.handlers);
  const message = Buffer.from(Array.from({ length: 3200 }, (_, i) => i & 0xff));
  const wire = device.encode('ctrlResp', message);
  const withNoise = Buffer.concat([
    Buffer.from('boot rom says hi\r\n'),
    wire.subarray(0, 1512),
    Buffer.from([0xff, 0x00, 0x12]),
    wire.subarray(1512),
  ]);
  for (let i = 0; i < withNoise.length; i += 7) host.push(withNoise.subarray(i, i + 7));
  assert.equal(r.frames, [['ctrlResp', message.toString('hex')]]);
  assert.ok(r.faults.includes('garbage'));
});

test('payload header: a bad checksum is counted and the next frame still arrives', () => {
  const device = createFraming('serial', 'device', recorder().handlers);
  const r = recorder();
  const host = createFraming('serial', 'host', r.handlers);
  const broken = device.encode('ctrlEvnt', pb(20));
  broken[20] ^= 0x10;
  host.push(Buffer.concat([broken, device.encode('ctrlEvnt', pb(21))]));
  assert.equal(
    r.frames.map(([, d]) => d.length / 2),
    [21],
  );
  assert.ok(r.faults.includes('bad_checksum'));
});

test('payload header: on the device, a fragment with another seq_num ends the message and is dropped (firmware reassembly)', () => {
  const r = recorder();
  const device = createFraming('serial', 'device', r.handlers);
  const tlv = encodeTlv('ctrlResp', pb(2000));
  const [a] = fragment(tlv, () => 7);
  const stray = fragment(encodeTlv('ctrlResp', pb(3)), () => 8);
  device.push(Buffer.concat([a, ...stray]));
  assert.equal(r.frames, []);
  assert.ok(r.faults.includes('truncated'));
  const good = fragment(encodeTlv('ctrlResp', pb(3)), () => 9);
  device.push(Buffer.concat(good));
  assert.is(r.frames.length, 1);
});

test("payload header: a request beyond the device's 4096-byte buffer is truncated and never handled", () => {
  const r = recorder();
  const device = createFraming('serial', 'device', r.handlers);
  device.push(Buffer.concat(fragment(encodeTlv('ctrlResp', pb(5000)), () => 1)));
  assert.equal(r.frames, []);
  assert.ok(r.faults.includes('too_long'));
});

test('payload header: a header with a length beyond 1600 bytes is garbage, not a reason to wait', () => {
  const r = recorder();
  const packets: number[] = [];
  const decoder = new PayloadHeaderDecoder({ packet: (h) => packets.push(h.len), fault: (f) => r.faults.push(f) });
  const fake = encodeFrame({ ifType: 2, ifNum: 0, flags: 0, seq: 1, packetType: 0 }, pb(4));
  fake.writeUInt16LE(40000, 2);
  decoder.push(Buffer.concat([fake, encodeFrame({ ifType: 2, ifNum: 0, flags: 0, seq: 2, packetType: 0 }, pb(6))]));
  assert.equal(packets, [6]);
  assert.ok(r.faults.includes('garbage'));
});

test.run();
