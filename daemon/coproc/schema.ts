/**
 * The CtrlMsg schema (proto/ctrl.proto) loaded with protobufjs, once per process.
 *
 * Two views of the same file: `schema` is the file as written; `wire` is the same schema with
 * every `string` field read as `bytes`. They are identical on the wire (both length-delimited), and
 * the wire view lets an SSID that is not valid UTF-8 travel byte for byte in `Req_ConnectAP.ssid`,
 * where protobufjs would otherwise re-encode it. The codec uses `wire`; converting text is our job.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { installPath } from '../install-paths.js';

export const PROTO_PATH = installPath('proto', 'ctrl.proto');

export interface Schema {
  readonly schema: protobuf.Root;
  wire: protobuf.Root;
  ctrlMsg: protobuf.Type;
}

let loaded: Schema | null = null;

export function loadSchema(): Schema {
  if (loaded) return loaded;
  const source = readFileSync(PROTO_PATH, 'utf8');
  const wire = parse(source.replace(/^(\s*(?:repeated\s+)?)string(\s+\w+\s*=)/gm, '$1bytes$2'));
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
