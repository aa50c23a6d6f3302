import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOutOfSpace, outOfSpaceError } from '../../daemon/storage/out-of-space.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('a full disk is recognised whoever reports it', () => {
  // knex puts the SQL in front of the driver's message and keeps its code.
  assert.ok(isOutOfSpace(withCode('insert into `statuses` … - SQLITE_FULL: database or disk is full', 'SQLITE_FULL')));
  assert.ok(isOutOfSpace(new Error('SQLITE_FULL: database or disk is full')));
  assert.ok(isOutOfSpace(withCode('ENOSPC: no space left on device, write', 'ENOSPC')));
  assert.ok(isOutOfSpace(withCode('EDQUOT: disk quota exceeded, write', 'EDQUOT')));
  // PostgreSQL's disk_full, its message in the server's language (here a German server's).
  const german = 'konnte Datei »base/16384/2619« nicht erweitern: Auf dem Gerät ist kein Speicherplatz mehr verfügbar';
  assert.ok(isOutOfSpace(withCode(`insert into "statuses" … - ${german}`, '53100')));
  // libvips through sharp: only a message.
  assert.ok(isOutOfSpace(new Error('VipsForeignSavePng: unable to write to target: No space left on device')));
  assert.ok(isOutOfSpace(new Error('upload failed', { cause: withCode('write failed', 'ENOSPC') })));
  assert.ok(isOutOfSpace(outOfSpaceError('only 10 of 20 bytes reached the disk')));
});

test('other failures are not a full disk', () => {
  assert.not.ok(isOutOfSpace(withCode('SQLITE_CONSTRAINT: UNIQUE constraint failed', 'SQLITE_CONSTRAINT')));
  assert.not.ok(isOutOfSpace(withCode('EACCES: permission denied', 'EACCES')));
  assert.not.ok(isOutOfSpace(withCode('sorry, too many clients already', '53300')));
  assert.not.ok(isOutOfSpace(new Error('Input buffer contains unsupported image format')));
  assert.not.ok(isOutOfSpace(null));
  assert.not.ok(isOutOfSpace('ENOSPC'));
});

test.run();
