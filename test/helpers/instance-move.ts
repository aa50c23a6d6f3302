/**
 * For the move-to-postgres tests: empty databases in the test cluster, a populated instance made
 * through the real API, and the rows of every table read from both engines in one form.
 */
import pg from 'pg';
import type { Db } from '../../daemon/store/db.js';
import { rawRows } from '../../daemon/store/dialect.js';
import { canonical } from '../../daemon/store/move/checksum.js';
import { targetSchema } from '../../daemon/store/move/target.js';
import type { FakeActor, FakePeer } from './fake-peer.js';
import { uploadPng } from './media-files.js';
import { databaseUrl } from './postgres-cluster.js';
import type { SocialHarness, TestAccount } from './social.js';

/** A database with nothing in it, in the cluster of `anyUrl` (a database of that cluster). */
export async function emptyDatabase(anyUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl(anyUrl, 'postgres') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: databaseUrl(anyUrl, name), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Each table's rows, canonical and sorted: equal for two databases holding the same data. */
export async function everyTable(postgres: Db, other: Db): Promise<Map<string, string[]>> {
  const schema = await targetSchema(postgres);
  const tables = new Map<string, string[]>();
  for (const [table, columns] of schema.tables) {
    const list = columns
      .map(
        (column) =>
          (column.kind === 'integer' ? `CAST("${column.name}" AS TEXT)` : `"${column.name}"`) + ` AS v_${column.name}`,
      )
      .join(', ');
    const rows = await rawRows<Record<string, unknown>>(other, `SELECT ${list} FROM "${table}"`);
    tables.set(
      table,
      rows
        .map((row) => JSON.stringify(columns.map((column) => canonical(column.kind, row[`v_${column.name}`]))))
        .sort(),
    );
  }
  return tables;
}

export interface Population {
  owner: TestAccount;
  alice: TestAccount;
  bob: TestAccount;
  mallory: FakeActor;
}

/**
 * An instance with something in every part: accounts, statuses with media and a poll, a reply,
 * favourites, follows (one requested), notifications, a remote follower and a remote mention
 * (federation state, deliveries queued while the box is offline), a saved network, the owner's
 * instance settings.
 */
export async function populate(h: SocialHarness, peer: FakePeer): Promise<Population> {
  const ok = async (answer: Promise<{ status: number; body: any }>) => {
    const { status, body } = await answer;
    if (status >= 300) throw new Error(`set-up call answered ${status}: ${JSON.stringify(body)}`);
    return body;
  };
  const owner = await h.account('owner', { owner: true, scopes: 'read write follow push admin:read admin:write' });
  const alice = await h.account('alice');
  const bob = await h.account('bob', { locked: true });
  const media = await uploadPng(h.url, alice.token, 'a red square');
  const withMedia = await ok(
    h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'Hello #nestbox', media_ids: [media] }),
  );
  const poll = await ok(
    h.api(bob.token, 'POST', '/api/v1/statuses', {
      status: 'Tea or coffee?',
      poll: { options: ['tea', 'coffee'], expires_in: 3600 },
    }),
  );
  await ok(h.api(owner.token, 'POST', `/api/v1/accounts/${alice.id}/follow`));
  await ok(h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/follow`));
  await ok(h.api(owner.token, 'POST', `/api/v1/accounts/${bob.id}/follow`));
  await ok(h.api(owner.token, 'POST', `/api/v1/statuses/${withMedia.id}/favourite`));
  await ok(h.api(owner.token, 'POST', `/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] }));
  await ok(
    h.api(owner.token, 'POST', '/api/v1/statuses', { status: `@alice nice picture`, in_reply_to_id: withMedia.id }),
  );
  await ok(h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'a note to self', visibility: 'private' }));
  await ok(h.api(owner.token, 'POST', '/api/nestbox/v1/networks', { ssid: 'Attic', password: 'attic-pass-123' }));
  await ok(h.api(owner.token, 'PUT', '/api/nestbox/v1/instance', { title: 'The Moving Nest', language: 'de' }));
  const mallory = peer.actor('mallory');
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${mallory.uri}#follows/alice`,
    type: 'Follow',
    actor: mallory.uri,
    object: `${h.url}/users/alice`,
  };
  const followed = await peer.post(`${h.url}/users/alice/inbox`, mallory, JSON.stringify(follow));
  if (followed.status !== 202) throw new Error(`the remote follow answered ${followed.status}`);
  const mention = await peer.post(
    `${h.url}/inbox`,
    mallory,
    peer.mention(mallory, 'hello from afar', `${h.url}/users/alice`),
  );
  if (mention.status !== 202) throw new Error(`the remote mention answered ${mention.status}`);
  return { owner, alice, bob, mallory };
}
