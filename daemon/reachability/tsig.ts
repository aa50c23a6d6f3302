/**
 * TSIG (RFC 8945): the HMAC that signs a DNS message with a secret shared with the server, and the
 * check of the server's signed answer. No npm library signs TSIG; dns-packet (used for the rest of
 * the message) leaves the record to us, so the few fields are laid out here over the wire bytes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TSIG_ALGORITHMS = {
  'hmac-sha256': 'sha256',
  'hmac-sha512': 'sha512',
  'hmac-sha384': 'sha384',
  'hmac-sha224': 'sha224',
  'hmac-sha1': 'sha1',
  'hmac-md5': 'md5',
} as const;
export type TsigAlgorithm = keyof typeof TSIG_ALGORITHMS;

export interface TsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  /** The decoded secret (the key file holds it in base64). */
  secret: Buffer;
}

const TYPE_TSIG = 250;
const CLASS_ANY = 255;
const FUDGE_S = 300;

/** RFC 8945 §6: the wire name of hmac-md5 keeps its historical suffix. */
function algorithmWireName(algorithm: TsigAlgorithm): string {
  return algorithm === 'hmac-md5' ? 'hmac-md5.sig-alg.reg.int' : algorithm;
}

/** A domain name in canonical wire form (lowercase, uncompressed), as the MAC covers it. */
export function wireName(name: string): Buffer {
  const labels = name.toLowerCase().replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])),
    Buffer.from([0]),
  ]);
}

function uint(value: number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
}

interface TsigFields {
  algorithm: TsigAlgorithm;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
}

/** The TSIG variables the MAC covers (RFC 8945 §4.3.3). */
function variables(keyName: string, fields: TsigFields): Buffer {
  return Buffer.concat([
    wireName(keyName),
    uint(CLASS_ANY, 2),
    uint(0, 4),
    wireName(algorithmWireName(fields.algorithm)),
    uint(fields.timeSigned, 6),
    uint(fields.fudge, 2),
    uint(fields.error, 2),
    uint(fields.other.length, 2),
    fields.other,
  ]);
}

function hmac(key: TsigKey, ...parts: Buffer[]): Buffer {
  const mac = createHmac(TSIG_ALGORITHMS[key.algorithm], key.secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** `message` (unsigned, complete) with its TSIG record appended; the MAC is kept to check the answer. */
export function signMessage(message: Buffer, key: TsigKey, nowS: number): { signed: Buffer; mac: Buffer } {
  const fields: TsigFields = {
    algorithm: key.algorithm,
    timeSigned: nowS,
    fudge: FUDGE_S,
    mac: Buffer.alloc(0),
    originalId: message.readUInt16BE(0),
    error: 0,
    other: Buffer.alloc(0),
  };
  fields.mac = hmac(key, message, variables(key.name, fields));
  const rdata = Buffer.concat([
    wireName(algorithmWireName(key.algorithm)),
    uint(fields.timeSigned, 6),
    uint(fields.fudge, 2),
    uint(fields.mac.length, 2),
    fields.mac,
    uint(fields.originalId, 2),
    uint(0, 2),
    uint(0, 2),
  ]);
  const record = Buffer.concat([
    wireName(key.name),
    uint(TYPE_TSIG, 2),
    uint(CLASS_ANY, 2),
    uint(0, 4),
    uint(rdata.length, 2),
    rdata,
  ]);
  const signed = Buffer.concat([message, record]);
  signed.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { signed, mac: fields.mac };
}

/** Past a (possibly compressed) name starting at `offset`. */
function skipName(buf: Buffer, offset: number): number {
  for (;;) {
    if (offset >= buf.length) throw new Error('truncated name');
    const len = buf[offset];
    if ((len & 0xc0) === 0xc0) return offset + 2;
    if (len === 0) return offset + 1;
    offset += len + 1;
  }
}

function readName(buf: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  for (;;) {
    const len = buf[offset];
    if (len === undefined || (len & 0xc0) !== 0) throw new Error('bad name in TSIG record');
    if (len === 0) return { name: labels.join('.').toLowerCase(), end: offset + 1 };
    labels.push(buf.toString('latin1', offset + 1, offset + 1 + len));
    offset += len + 1;
  }
}

export interface ResponseTsig {
  keyName: string;
  /** The TSIG error (0, or BADSIG 16, BADKEY 17, BADTIME 18, BADTRUNC 22). */
  error: number;
  /** Whether the MAC is the key's over this answer and our request. */
  verified: boolean;
  /** The server's clock, when it signed. */
  timeSigned: number;
  /** With BADTIME, the server's own clock (RFC 8945 §5.2.3: Other Data, 48 bits), in seconds. */
  serverTime: number | null;
}

/** The TSIG record of an answer (the last additional record), checked against the request's MAC; null when unsigned. */
export function readResponseTsig(response: Buffer, key: TsigKey, requestMac: Buffer): ResponseTsig | null {
  const counts = [4, 6, 8, 10].map((at) => response.readUInt16BE(at));
  const additionals = counts[3];
  if (additionals === 0) return null;
  let offset = 12;
  for (let i = 0; i < counts[0]; i += 1) offset = skipName(response, offset) + 4;
  const records = counts[1] + counts[2] + additionals;
  let start = offset;
  for (let i = 0; i < records; i += 1) {
    start = offset;
    offset = skipName(response, offset);
    offset += 10 + response.readUInt16BE(offset + 8);
  }
  const nameEnd = skipName(response, start);
  if (response.readUInt16BE(nameEnd) !== TYPE_TSIG) return null;
  const keyName = readName(response, start).name;
  const rdata = response.subarray(nameEnd + 10, offset);
  const algorithm = readName(rdata, 0);
  let at = algorithm.end;
  const timeSigned = rdata.readUIntBE(at, 6);
  const fudge = rdata.readUInt16BE(at + 6);
  const macLength = rdata.readUInt16BE(at + 8);
  at += 10;
  const mac = rdata.subarray(at, at + macLength);
  at += macLength;
  const originalId = rdata.readUInt16BE(at);
  const error = rdata.readUInt16BE(at + 2);
  const other = rdata.subarray(at + 6, at + 6 + rdata.readUInt16BE(at + 4));
  const algorithmName = algorithm.name === 'hmac-md5.sig-alg.reg.int' ? 'hmac-md5' : algorithm.name;
  let verified = false;
  if (macLength > 0 && keyName === key.name.toLowerCase().replace(/\.$/, '') && algorithmName === key.algorithm) {
    const unsigned = Buffer.from(response.subarray(0, start));
    unsigned.writeUInt16BE(originalId, 0);
    unsigned.writeUInt16BE(additionals - 1, 10);
    const expected = hmac(
      key,
      uint(requestMac.length, 2),
      requestMac,
      unsigned,
      variables(key.name, { algorithm: key.algorithm, timeSigned, fudge, mac, originalId, error, other }),
    );
    verified = expected.length === mac.length && timingSafeEqual(expected, mac);
  }
  const serverTime = other.length === 6 ? other.readUIntBE(0, 6) : null;
  return { keyName, error, verified, timeSigned, serverTime };
}
