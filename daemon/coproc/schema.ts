/**
 * The CtrlMsg schema (proto/ctrl.proto) loaded with protobufjs, once per process.
 *
 * Two views of the same file: `schema` is the file as written; `wire` is the same schema with
 * every `string` field read as `bytes`. They are identical on the wire (both length-delimited), and
 * the wire view lets an SSID that is not valid UTF-8 travel byte for byte in `Req_ConnectAP.ssid`,
 * where protobufjs would otherwise re-encode it. The codec uses `wire`; converting text is our job.
 *
 * proto/ctrl.proto stays the one source. The build also writes the wire view as protobufjs's JSON
 * descriptor (dist/proto/ctrl.wire.json, made by `describeWire`), tagged with the SHA-256 of the
 * .proto it came from: building the reflection from it takes a third of the parser's time. A
 * descriptor missing, unreadable or made from another version of the file is not used.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { installPath } from '../install-paths.js';

export const PROTO_PATH = installPath('proto', 'ctrl.proto');
export const WIRE_DESCRIPTOR_PATH = installPath('dist', 'proto', 'ctrl.wire.json');

export interface Schema {
  readonly schema: protobuf.Root;
  wire: protobuf.Root;
  ctrlMsg: protobuf.Type;
}

/** The wire view as written to WIRE_DESCRIPTOR_PATH. */
export interface WireDescriptor {
  protoSha256: string;
  root: protobuf.INamespace;
}

let loaded: Schema | null = null;

export function loadSchema(): Schema {
  if (loaded) return loaded;
  const source = readFileSync(PROTO_PATH, 'utf8');
  const wire = builtWire(source) ?? parse(wireSource(source));
  let schema: protobuf.Root | null = null;
  loaded = {
    wire,
    ctrlMsg: wire.lookupType('CtrlMsg'),
    // Only presenting messages (the tools) needs the file as written: the daemon never parses it.
    get schema() {
      return (schema ??= parse(source));
    },
  };
  return loaded;
}

/** The wire view of `source` as a JSON descriptor (deterministic: same file, same text). */
export function describeWire(source: string): WireDescriptor {
  return { protoSha256: sha256(source), root: parse(wireSource(source)).toJSON() };
}

function builtWire(source: string): protobuf.Root | null {
  let descriptor: WireDescriptor;
  try {
    descriptor = JSON.parse(readFileSync(WIRE_DESCRIPTOR_PATH, 'utf8')) as WireDescriptor;
  } catch {
    return null;
  }
  if (descriptor.protoSha256 !== sha256(source)) return null;
  const root = protobuf.Root.fromJSON(descriptor.root);
  root.resolveAll();
  return root;
}

function wireSource(source: string): string {
  return source.replace(/^(\s*(?:repeated\s+)?)string(\s+\w+\s*=)/gm, '$1bytes$2');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parse(source: string): protobuf.Root {
  const root = protobuf.parse(source, { keepCase: true }).root;
  root.resolveAll();
  return root;
}

export function wireType(name: string): protobuf.Type {
  return loadSchema().wire.lookupType(name);
}

export function schemaEnum(name: string): protobuf.Enum {
  return loadSchema().schema.lookupEnum(name);
}
