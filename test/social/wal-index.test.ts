/** The data version read from SQLite's WAL index: only a header whose two copies agree is an answer. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WalIndex } from '../../daemon/social/store/wal-index.js';
import { tempDir } from '../helpers/paths.js';

/** A 48-byte WAL-index header: change counter, isInit, last frame. */
function header(change: number, frame: number, init = 1): Buffer {
  const bytes = Buffer.alloc(48);
  bytes.writeUInt32LE(3007000, 0);
  bytes.writeUInt32LE(change, 8);
  bytes[12] = init;
  bytes.writeUInt32LE(frame, 16);
  return bytes;
}

/** Runs `check` on the index of a database whose `-shm` file holds `bytes` (136 bytes: two headers and the checkpoint part). */
function withIndex(bytes: Buffer, check: (index: WalIndex) => void): void {
  const dir = tempDir();
  const file = join(dir.path, 'db.sqlite3');
  writeFileSync(`${file}-shm`, Buffer.concat([bytes, Buffer.alloc(136 - bytes.length)]));
  const index = WalIndex.open(file)!;
  try {
    check(index);
  } finally {
    index.close();
    dir.remove();
  }
}

test('two equal copies give a version that differs with the change counter or the last frame', () => {
  const versions = [header(1, 10), header(2, 10), header(2, 11)].map((one) => {
    let version: string | null = null;
    withIndex(Buffer.concat([one, one]), (index) => (version = index.version()));
    return version;
  });
  assert.ok(versions.every((v) => typeof v === 'string'));
  assert.is(new Set(versions).size, 3);
});

test('copies that differ (a commit half-way), an index not yet built or a missing file give no answer', () => {
  withIndex(Buffer.concat([header(2, 11), header(3, 12)]), (index) => assert.is(index.version(), null));
  withIndex(Buffer.concat([header(2, 11, 0), header(2, 11, 0)]), (index) => assert.is(index.version(), null));
  const dir = tempDir();
  assert.is(WalIndex.open(join(dir.path, 'none.sqlite3')), null);
  dir.remove();
});

test.run();
