/**
 * A table's checksum, the same whichever engine the rows are read from and in whatever order:
 * each row's values in one canonical form (ids as text, flags as 0/1, JSON parsed with its keys
 * sorted, bytes as hex), hashed, and the hashes summed modulo 2^64.
 */
import { createHash } from 'node:crypto';
import type { ColumnKind } from './target.js';

function sortedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortedJson(object[key])]),
  );
}

/** A value as the drivers give it (text, a number, bytes) as text. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return value.toString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return JSON.stringify(value);
}

/** A value in the form both engines' rows agree on. */
export function canonical(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'integer':
      return textOf(value);
    case 'boolean':
      return Number(value) ? 1 : 0;
    case 'json':
      return sortedJson(JSON.parse(textOf(value)));
    case 'real':
      return Number(value);
    case 'bytes':
      return Buffer.isBuffer(value) ? value.toString('hex') : textOf(value);
    case 'text':
      return textOf(value);
  }
}

const MODULUS = 1n << 64n;

export class TableChecksum {
  rows = 0;
  private sum = 0n;

  constructor(private readonly kinds: readonly ColumnKind[]) {}

  add(row: readonly unknown[]): void {
    const text = JSON.stringify(row.map((value, i) => canonical(this.kinds[i], value)));
    const digest = createHash('sha256').update(text).digest();
    this.sum = (this.sum + digest.readBigUInt64BE(0)) % MODULUS;
    this.rows += 1;
  }

  get value(): string {
    return this.sum.toString(16).padStart(16, '0');
  }
}
