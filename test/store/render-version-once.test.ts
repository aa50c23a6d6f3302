/**
 * A status's render version (the render cache's key) moves with every committed change to what it
 * is rendered from, on both engines; on PostgreSQL a transaction that wrote the status row already
 * (posting: the status, then its mentions and tags) writes it no second time
 * (migration 20261209_30, `store/migrations/postgres/render-versions.ts`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../daemon/store/db.js';
import { ENGINES, EngineDatabases } from '../helpers/engines.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

const CREATED = '2026-01-01T00:00:00.000Z';
const [AUTHOR, READER] = ['9007199254740995001', '9007199254740995002'];
const STATUS = '9107199254740995001';

async function version(db: Db): Promise<number> {
  const [row] = await db('statuses').select('version').where({ id: STATUS });
  return Number((row as { version: number }).version);
}

/** The versions after each committed step: the post, a tag, an edit with a mention, a mention gone. */
async function steps(db: Db): Promise<number[]> {
  for (const [id, username] of [
    [AUTHOR, 'author'],
    [READER, 'reader'],
  ])
    await db('accounts').insert({ id, username, uri: `u:${id}`, created_at: CREATED, updated_at: CREATED });
  const [tag] = await db('tags').insert({ name: 'birds', created_at: CREATED }).returning<Array<{ id: number }>>('id');
  const versions: number[] = [];
  await db.transaction(async (trx) => {
    await trx('statuses').insert({
      id: STATUS,
      account_id: AUTHOR,
      uri: `s:${STATUS}`,
      created_at: CREATED,
      updated_at: CREATED,
    });
    await trx('mentions').insert({ status_id: STATUS, account_id: READER });
  });
  versions.push(await version(db));
  await db('status_tags').insert({ status_id: STATUS, tag_id: tag.id });
  versions.push(await version(db));
  await db.transaction(async (trx) => {
    await trx('statuses').where({ id: STATUS }).update({ text: 'edited' });
    await trx('mentions').where({ status_id: STATUS }).delete();
    await trx('mentions').insert({ status_id: STATUS, account_id: AUTHOR });
  });
  versions.push(await version(db));
  await db('mentions').where({ status_id: STATUS }).delete();
  versions.push(await version(db));
  return versions;
}

for (const engine of ENGINES) {
  test(`every committed change to a status's mentions or tags moves its version (${engine})`, async () => {
    const versions = await steps(await databases.get(engine));
    for (let i = 1; i < versions.length; i++)
      assert.ok(versions[i] > versions[i - 1], `step ${i} moved the version: ${versions.join(', ')}`);
    // SQLite's triggers bump once a row; PostgreSQL's leave a row its transaction wrote already.
    if (engine === 'postgres') assert.equal(versions, [0, 1, 2, 3]);
    else assert.equal(versions, [1, 2, 5, 6]);
  });
}

test.run();
