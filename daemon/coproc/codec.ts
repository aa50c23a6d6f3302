/**
 * CtrlMsg ↔ protobuf bytes. Like the firmware's protobuf-c (proto3, LABEL_NONE), zero / false /
 * empty singular fields are left off the wire; an empty sub-message is still sent (the oneof member
 * says which operation it is). Decoding skips what the schema does not know (fields and ids of
 * firmware newer than the current generation) and reports how many unknown fields it skipped.
 */
import protobuf from 'protobufjs';
import { loadSchema } from './schema.js';

export type Body = Record<string, unknown>;

export interface CtrlMessage {
  msgType: number;
  msgId: number;
  /** The request's uid (current firmware echoes it in the response); 0 when absent (documented firmware). */
  uid: number;
  /** The oneof member present (e.g. "resp_get_mac_address"), or null when none is known. */
  field: string | null;
  /** The payload sub-message with defaults filled in (bytes as Buffer), or null. */
  body: Body | null;
  /** Fields skipped because the schema does not know them (newer firmware). */
  unknownFields: number;
}

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export function encodeCtrlMsg(
  msgType: number,
  msgId: number,
  field: string | null,
  body: Body | null = {},
  uid = 0,
): Uint8Array {
  const { ctrlMsg } = loadSchema();
  const object: Body = { msg_type: msgType, msg_id: msgId, uid };
  if (field) {
    const member = ctrlMsg.fields[field];
    if (!member?.resolvedType || !(member.resolvedType instanceof protobuf.Type))
      throw new Error(`CtrlMsg has no payload ${field}`);
    object[field] = pruneDefaults(member.resolvedType, body ?? {});
  }
  const message = ctrlMsg.fromObject(pruneDefaults(ctrlMsg, object));
  return ctrlMsg.encode(message).finish();
}

export function decodeCtrlMsg(bytes: Uint8Array): CtrlMessage {
  const { ctrlMsg } = loadSchema();
  let message: protobuf.Message;
  let unknownFields: number;
  try {
    unknownFields = countUnknownFields(ctrlMsg, bytes);
    message = ctrlMsg.decode(bytes);
  } catch (error) {
    throw new DecodeError(`undecodable CtrlMsg: ${(error as Error).message}`);
  }
  const plain = ctrlMsg.toObject(message, { defaults: true, oneofs: true });
  const field = typeof plain.payload === 'string' ? plain.payload : null;
  return {
    msgType: Number(plain.msg_type) || 0,
    msgId: Number(plain.msg_id) || 0,
    uid: Number(plain.uid) || 0,
    field,
    body: field ? (plain[field] as Body) : null,
    unknownFields,
  };
}

/** Drops singular fields holding their default value, recursively; keeps sub-messages even when empty. */
function pruneDefaults(type: protobuf.Type, object: Body): Body {
  const out: Body = {};
  for (const [name, value] of Object.entries(object)) {
    const field = type.fields[name];
    if (!field || value === undefined || value === null) continue;
    const nested = field.resolvedType instanceof protobuf.Type ? field.resolvedType : null;
    if (field.repeated) {
      if (!Array.isArray(value) || value.length === 0) continue;
      out[name] = nested ? value.map((item) => pruneDefaults(nested, item as Body)) : value;
    } else if (nested) {
      out[name] = pruneDefaults(nested, value as Body);
    } else if (!isDefault(value)) {
      out[name] = value;
    }
  }
  return out;
}

function isDefault(value: unknown): boolean {
  if (value === 0 || value === false || value === '') return true;
  return value instanceof Uint8Array && value.length === 0;
}

/** Walks the wire format and counts the fields `type` does not declare, in nested messages too. */
function countUnknownFields(type: protobuf.Type, bytes: Uint8Array): number {
  const reader = protobuf.Reader.create(bytes);
  let unknown = 0;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const number = tag >>> 3;
    const wireType = tag & 7;
    const field = type.fieldsById[number];
    if (number === 0) throw new Error('field number 0');
    if (!field) {
      unknown += 1;
      reader.skipType(wireType);
      continue;
    }
    if (field.resolvedType instanceof protobuf.Type && wireType === 2) {
      unknown += countUnknownFields(field.resolvedType, reader.bytes());
    } else {
      reader.skipType(wireType);
    }
  }
  return unknown;
}
