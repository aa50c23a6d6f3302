import { test } from 'uvu';
import * as assert from 'uvu/assert';
import protobuf from 'protobufjs';
import { decodeCtrlMsg, DecodeError, encodeCtrlMsg, type Body } from '../../daemon/coproc/codec.js';
import { encodeTlv } from '../../daemon/coproc/framing/tlv.js';
import { EVENTS, OPERATIONS, REQ_MAX, RESP_MAX, EVENT_MAX } from '../../daemon/coproc/operations.js';
import { loadSchema } from '../../daemon/coproc/schema.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const ascii = (text: string) => Uint8Array.from(Buffer.from(text, 'ascii'));

// Byte vectors: what protobuf-c in the real firmware and host library writes for these messages.
const VECTORS: Array<[string, [number, number, string, Body], string]> = [
  ['Req_GetMACAddress mode=1', [1, 101, 'req_get_mac_address', { mode: 1 }], '08011065aa06020801'],
  [
    'Resp_GetMACAddress ok',
    [2, 201, 'resp_get_mac_address', { mac: ascii('24:0a:c4:12:34:56'), resp: 0 }],
    '080210c901ca0c130a11' + hex(ascii('24:0a:c4:12:34:56')),
  ],
  ['Req_GetWifiMode', [1, 103, 'req_get_wifi_mode', {}], '08011067ba0600'],
  [
    'Req_ConfigHeartbeat 20 s',
    [1, 121, 'req_config_heartbeat', { enable: true, duration: 20 }],
    '08011079ca070408011014',
  ],
  ['Resp_ConfigHeartbeat ok', [2, 221, 'resp_config_heartbeat', { resp: 0 }], '080210dd01ea0d00'],
  ['Event_DevInit', [3, 301, 'event_dev_init', { init_data: new Uint8Array() }], '080310ad02ea1200'],
  ['Event_Heartbeat 5', [3, 302, 'event_heartbeat', { hb_num: 5 }], '080310ae02f212020805'],
  [
    'Event_StationDisconnectFromAP reason 200',
    [3, 303, 'event_station_disconnect_from_AP', { resp: 200 }],
    '080310af02fa120308c801',
  ],
];

for (const [name, [type, id, field, body], expected] of VECTORS) {
  test(`firmware byte vector: ${name} encodes byte for byte and decodes back`, () => {
    assert.is(hex(encodeCtrlMsg(type, id, field, body)), expected);
    const decoded = decodeCtrlMsg(Buffer.from(expected, 'hex'));
    assert.is(decoded.msgType, type);
    assert.is(decoded.msgId, id);
    assert.is(decoded.field, field);
    assert.is(decoded.unknownFields, 0);
  });
}

test('zero-valued fields are left off the wire, as protobuf-c does (resp 0, false, empty bytes, enum 0)', () => {
  const bytes = encodeCtrlMsg(2, 209, 'resp_get_softap_config', {
    ssid: ascii('x'),
    pwd: new Uint8Array(),
    chnl: 0,
    sec_prot: 0,
    max_conn: 0,
    ssid_hidden: false,
    bw: 0,
    resp: 0,
  });
  // msg_type, msg_id, then the sub-message holding only ssid (field 1, "x").
  assert.is(hex(bytes), '080210d101' + '8a0d' + '03' + '0a0178');
});

test('resp −1 is a 10-byte varint on the wire', () => {
  const bytes = encodeCtrlMsg(2, 204, 'resp_set_wifi_mode', { resp: -1 });
  assert.ok(hex(bytes).endsWith('0b08ffffffffffffffffff01'));
  assert.is(decodeCtrlMsg(bytes).body!.resp, -1);
});

test('a protocomm TLV frame as the host library writes it (Req_GetMACAddress under ctrlResp)', () => {
  const frame = encodeTlv('ctrlResp', encodeCtrlMsg(1, 101, 'req_get_mac_address', { mode: 1 }));
  assert.is(hex(frame), '01' + '0800' + '6374726c52657370' + '02' + '0900' + '08011065aa06020801');
});

test('oneof tags: field number equals the message id for every request, response and event', () => {
  const tag = (id: number) =>
    hex(
      protobuf.Writer.create()
        .uint32((id << 3) | 2)
        .finish(),
    );
  assert.is(tag(101), 'aa06');
  assert.is(tag(121), 'ca07');
  assert.is(tag(201), 'ca0c');
  assert.is(tag(221), 'ea0d');
  assert.equal([301, 302, 303, 304].map(tag), ['ea12', 'f212', 'fa12', '8213']);
  for (const op of OPERATIONS) {
    assert.ok(hex(encodeCtrlMsg(1, op.id, op.requestField, {})).includes(tag(op.id)), op.cli);
    assert.ok(hex(encodeCtrlMsg(2, op.id + 100, op.responseField, {})).includes(tag(op.id + 100)), op.cli);
  }
});

test('the operation and event tables agree with proto/ctrl.proto (ids, payload fields, message types, CtrlMsgId names)', () => {
  const { schema } = loadSchema();
  const ctrlMsg = schema.lookupType('CtrlMsg');
  const ids = schema.lookupEnum('CtrlMsgId').values;
  assert.is(OPERATIONS.length, 25);
  assert.is(EVENTS.length, 8);
  assert.is(OPERATIONS.filter((op) => op.since === 'documented').length, 21);
  assert.is(EVENTS.filter((event) => event.since === 'documented').length, 4);
  for (const op of OPERATIONS) {
    assert.is(ctrlMsg.fieldsById[op.id].name, op.requestField);
    assert.is(ctrlMsg.fieldsById[op.id].type, op.requestType);
    assert.is(ctrlMsg.fieldsById[op.id + 100].name, op.responseField);
    assert.is(ctrlMsg.fieldsById[op.id + 100].type, op.responseType);
    assert.is(ids[`Req_${op.protocolName}`], op.id);
    assert.is(ids[`Resp_${op.protocolName}`], op.id + 100);
  }
  for (const event of EVENTS) {
    assert.is(ctrlMsg.fieldsById[event.id].name, event.field);
    assert.is(ids[event.protocolName], event.id);
  }
  assert.equal([ids.Req_Max, ids.Resp_Max, ids.Event_Max], [REQ_MAX, RESP_MAX, EVENT_MAX]);
  // Espressif's current schema: 28 requests, 28 responses, 8 events.
  assert.is(ctrlMsg.oneofs.payload.fieldsArray.length, 64);
});

/** A message of `type` with every field set to something other than its default. */
function sample(type: protobuf.Type, salt: number): Body {
  const body: Body = {};
  for (const field of type.fieldsArray) {
    const one = (): unknown => {
      if (field.resolvedType instanceof protobuf.Type) return sample(field.resolvedType, salt + 1);
      if (field.resolvedType instanceof protobuf.Enum) return 1 + (salt % 2);
      switch (field.type) {
        case 'bool':
          return true;
        case 'bytes':
          return Uint8Array.from(Buffer.from(`${field.name}-${salt}`));
        case 'uint32':
          return 3 + salt;
        default:
          return field.name === 'resp' ? -1 : -7 - salt;
      }
    };
    body[field.name] = field.repeated ? [one(), one()] : one();
  }
  return body;
}

const plain = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_k, v) => {
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      return v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('hex') : v;
    }),
  );

for (const op of OPERATIONS) {
  test(`round trip: ${op.protocolName} (${op.id}) request and response`, () => {
    const { wire } = loadSchema();
    for (const [type, id, field, typeName] of [
      [1, op.id, op.requestField, op.requestType],
      [2, op.id + 100, op.responseField, op.responseType],
    ] as const) {
      const body = sample(wire.lookupType(typeName), id);
      const decoded = decodeCtrlMsg(encodeCtrlMsg(type, id, field, body));
      assert.is(decoded.msgType, type);
      assert.is(decoded.msgId, id);
      assert.is(decoded.field, field);
      assert.equal(plain(decoded.body), plain(body));
    }
  });
}

for (const event of EVENTS) {
  test(`round trip: ${event.protocolName} (${event.id})`, () => {
    const body = sample(loadSchema().wire.lookupType(event.type), event.id);
    const decoded = decodeCtrlMsg(encodeCtrlMsg(3, event.id, event.field, body));
    assert.equal([decoded.msgType, decoded.msgId, decoded.field], [3, event.id, event.field]);
    assert.equal(plain(decoded.body), plain(body));
  });
}

test('current firmware: uid (field 3) and the disconnect reason (field 5) are read, nothing is skipped', () => {
  // Event_StationDisconnectFromAP: CtrlMsg.uid = 9; resp 0 omitted, reason (field 5) = 201.
  const bytes = Buffer.from('080310af02' + '1809' + 'fa12' + '03' + '28c901', 'hex');
  const decoded = decodeCtrlMsg(bytes);
  assert.is(decoded.field, 'event_station_disconnect_from_AP');
  assert.equal([decoded.uid, decoded.body!.resp, decoded.body!.reason], [9, 0, 201]);
  assert.is(decoded.unknownFields, 0);
});

test('a request carries its uid as field 3, as the host library writes it', () => {
  const bytes = encodeCtrlMsg(1, 123, 'req_get_fw_version', {}, 7);
  assert.is(hex(bytes), '0801107b1807' + 'da0700');
  assert.is(decodeCtrlMsg(bytes).uid, 7);
});

test('current firmware: Event_StationConnectedToAP (305) and Resp_GetFwVersion (223) decode with their payloads', () => {
  const event = decodeCtrlMsg(Buffer.from('080310b1028a13020801', 'hex'));
  assert.equal(
    [event.msgId, event.field, event.body!.resp, event.unknownFields],
    [305, 'event_station_connected_to_AP', 1, 0],
  );
  const response = decodeCtrlMsg(Buffer.from('080210df01fa0d00', 'hex'));
  assert.equal([response.msgId, response.field], [223, 'resp_get_fw_version']);
});

test('firmware newer still: unknown ids and fields are skipped and counted', () => {
  // CtrlMsg field 20 (unknown, varint 1) and an event id 309 with a payload under tag 309.
  const bytes = Buffer.from('080310b502' + 'a00101' + 'aa13020801', 'hex');
  const decoded = decodeCtrlMsg(bytes);
  assert.equal([decoded.msgId, decoded.field, decoded.unknownFields], [309, null, 2]);
});

test('undecodable protobuf is a DecodeError, never a crash', () => {
  for (const junk of ['ff', '0a05', 'fa12ff', '08ffffffffffffffffffff01', '00']) {
    assert.throws(
      () => decodeCtrlMsg(Buffer.from(junk, 'hex')),
      (error: unknown) => error instanceof DecodeError,
      junk,
    );
  }
});

test.run();
