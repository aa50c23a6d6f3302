/**
 * The link's schema: proto/ctrl.proto is the source; the build's JSON descriptor of the wire view
 * (read at start instead of parsing the file) is made from the file as it is now and describes
 * exactly the same messages as parsing it does.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { describeWire, PROTO_PATH, WIRE_DESCRIPTOR_PATH, type WireDescriptor } from '../../daemon/coproc/schema.js';

const source = readFileSync(PROTO_PATH, 'utf8');
const built = JSON.parse(readFileSync(WIRE_DESCRIPTOR_PATH, 'utf8')) as WireDescriptor;

function types(ns: protobuf.NamespaceBase, out: protobuf.Type[] = []): protobuf.Type[] {
  for (const member of ns.nestedArray) {
    if (member instanceof protobuf.Type) out.push(member);
    if (member instanceof protobuf.Namespace || member instanceof protobuf.Type) types(member, out);
  }
  return out;
}

test('the built descriptor is the one the current proto/ctrl.proto gives', () => {
  // Through JSON text, as the build writes it (protobufjs leaves unset options as undefined).
  assert.equal(built, JSON.parse(JSON.stringify(describeWire(source))));
});

test('a changed .proto no longer matches the descriptor built from the old one', () => {
  const changed = describeWire(
    source.replace('message CtrlMsg {', 'message CtrlMsg {\n  uint32 added_for_test = 999;'),
  );
  assert.is.not(changed.protoSha256, built.protoSha256);
  assert.not.equal(changed.root, built.root);
});

test('the descriptor gives the same fields, types, oneofs and encodings as parsing the file', () => {
  const parsed = protobuf.parse(source.replace(/^(\s*(?:repeated\s+)?)string(\s+\w+\s*=)/gm, '$1bytes$2'), {
    keepCase: true,
  }).root;
  parsed.resolveAll();
  const fromJson = protobuf.Root.fromJSON(built.root);
  fromJson.resolveAll();
  const expected = types(parsed);
  assert.ok(expected.length > 50, `${expected.length} message types`);
  for (const type of expected) {
    const other = fromJson.lookupType(type.fullName);
    assert.equal(Object.keys(other.fields), Object.keys(type.fields), type.fullName);
    for (const field of type.fieldsArray) {
      const twin = other.fields[field.name];
      const shape = (f: protobuf.Field) => [f.id, f.type, f.repeated, f.packed, f.optional, f.partOf?.name ?? null];
      assert.equal(shape(twin), shape(field), `${type.fullName}.${field.name}`);
    }
  }
  const ssid = {
    msg_type: 1,
    msg_id: 110,
    req_connect_ap: { ssid: Buffer.from([0xff, 0x41]), pwd: Buffer.from('pw') },
  };
  const encode = (root: protobuf.Root) => {
    const ctrlMsg = root.lookupType('CtrlMsg');
    return Buffer.from(ctrlMsg.encode(ctrlMsg.fromObject(ssid)).finish()).toString('hex');
  };
  assert.is(encode(fromJson), encode(parsed));
});

test.run();
