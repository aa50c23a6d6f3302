/** Random CtrlMsg payloads and byte-level mutations for fuzzing, from a seeded generator. */
import protobuf from 'protobufjs';
import type { Body } from '../../daemon/coproc/codec.js';

/** mulberry32: small, fast, seeded, good enough to reproduce a run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;
export const int = (random: Random, n: number) => Math.floor(random() * n);
export const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)];
export const bytes = (random: Random, n: number) => Buffer.from(Array.from({ length: n }, () => int(random, 256)));

const INTERESTING = [0, 1, -1, 2, 5, 7, 8, 10, 84, 85, 127, 128, 255, 3600, 3601, 65535, 2 ** 31 - 1, -(2 ** 31)];

/** A message of `type` with a random subset of its fields set to random or edge values. */
export function randomBody(type: protobuf.Type, random: Random, depth = 0): Body {
  const body: Body = {};
  for (const field of type.fieldsArray) {
    if (random() < 0.3) continue;
    const one = (): unknown => {
      if (field.resolvedType instanceof protobuf.Type)
        return depth < 3 ? randomBody(field.resolvedType, random, depth + 1) : {};
      if (field.resolvedType instanceof protobuf.Enum) return int(random, 12);
      switch (field.type) {
        case 'bool':
          return random() < 0.5;
        case 'bytes':
          return random() < 0.3
            ? Buffer.from(`${pick(random, ['24', '3c', 'ff', '01'])}:0a:c4:12:34:${int(random, 100)}`)
            : bytes(random, int(random, 48));
        case 'uint32':
          return random() < 0.5 ? pick(random, INTERESTING) >>> 0 : int(random, 1000);
        default:
          return random() < 0.5 ? pick(random, INTERESTING) : int(random, 2000) - 1000;
      }
    };
    body[field.name] = field.repeated ? Array.from({ length: int(random, 4) }, one) : one();
  }
  return body;
}

/** One of several byte-level damages: bit flips, truncation, insertion, deletion, length fields. */
export function mutate(frame: Buffer, random: Random, other: Buffer): Buffer {
  const copy = Buffer.from(frame);
  switch (int(random, 8)) {
    case 0:
      return copy;
    case 1: {
      for (let i = 1 + int(random, 3); i > 0 && copy.length; i--) copy[int(random, copy.length)] ^= 1 << int(random, 8);
      return copy;
    }
    case 2:
      return copy.subarray(0, int(random, copy.length + 1));
    case 3: {
      const at = int(random, copy.length + 1);
      return Buffer.concat([copy.subarray(0, at), bytes(random, 1 + int(random, 40)), copy.subarray(at)]);
    }
    case 4: {
      const at = int(random, copy.length + 1);
      return Buffer.concat([copy.subarray(0, at), copy.subarray(at + 1 + int(random, 20))]);
    }
    case 5:
      return bytes(random, 1 + int(random, 200));
    case 6: {
      // Lengths live at offsets 1, 2 (TLV EP length / header len) and 12 (TLV data length).
      const at = pick(random, [1, 2, 12, 14]);
      if (copy.length >= at + 2) copy.writeUInt16LE(int(random, 65536), at);
      return copy;
    }
    default:
      return Buffer.concat([
        copy.subarray(0, int(random, copy.length + 1)),
        other.subarray(int(random, other.length + 1)),
      ]);
  }
}
