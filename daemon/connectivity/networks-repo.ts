/**
 * Saved networks in the database (SQL only). Priority: a lower number is tried first; the API shows
 * positions 1..n. A network whose password was refused too often is flagged and left out of
 * the candidates until its password is given again.
 */
import type { Db } from '../store/db.js';
import { dialectOf } from '../store/dialect.js';
import type { NetworkInput } from './network-input.js';

export interface SavedNetwork {
  id: number;
  ssid: Uint8Array;
  passphrase: string;
  hidden: boolean;
  priority: number;
  authFailures: number;
  passwordRefused: boolean;
  lastSuccessAt: string | null;
}

const TABLE = 'connectivity_networks';

export class NetworksRepo {
  constructor(private readonly db: Db) {}

  async list(): Promise<SavedNetwork[]> {
    const rows = await this.db(TABLE)
      .select<NetworkRow[]>('*')
      .orderBy([{ column: 'priority' }, { column: 'id' }]);
    return rows.map(toNetwork);
  }

  async get(id: number): Promise<SavedNetwork | null> {
    const row = await this.db(TABLE).where({ id }).first<NetworkRow | undefined>();
    return row ? toNetwork(row) : null;
  }

  async findBySsid(ssid: Uint8Array): Promise<SavedNetwork | null> {
    const row = await this.db(TABLE)
      .where({ ssid: Buffer.from(ssid) })
      .first<NetworkRow | undefined>();
    return row ? toNetwork(row) : null;
  }

  /** Tried in this order: not flagged, by priority. */
  async candidates(): Promise<SavedNetwork[]> {
    return (await this.list()).filter((network) => !network.passwordRefused);
  }

  /**
   * Saves a network, or replaces the password of the one with the same SSID (which clears its
   * refusal flag). `first` puts it at the top: what a person just typed is tried first.
   */
  async save(input: NetworkInput, first: boolean): Promise<SavedNetwork> {
    return this.db.transaction(async (trx) => {
      const bounds = await trx(TABLE).min({ low: 'priority' }).max({ high: 'priority' }).first();
      const priority = first ? Number(bounds?.low ?? 1) - 1 : Number(bounds?.high ?? 0) + 1;
      const fields = {
        passphrase: input.passphrase,
        hidden: input.hidden,
        auth_failures: 0,
        password_refused: false,
        updated_at: trx.raw(dialectOf(trx).nowIso),
      };
      const existing = await trx(TABLE)
        .where({ ssid: Buffer.from(input.ssid) })
        .first<{ id: number } | undefined>('id');
      let id: number;
      if (existing) {
        id = Number(existing.id);
        await trx(TABLE)
          .where({ id })
          .update(first ? { ...fields, priority } : fields);
      } else {
        const [row] = await trx(TABLE)
          .insert({ ssid: Buffer.from(input.ssid), priority, ...fields })
          .returning<Array<{ id: number }>>('id');
        id = Number(row.id);
      }
      return toNetwork(await trx(TABLE).where({ id }).first<NetworkRow>());
    });
  }

  async remove(id: number): Promise<boolean> {
    return (await this.db(TABLE).where({ id }).delete()) > 0;
  }

  /** `ids` must name every saved network once; the first is tried first. */
  async reorder(ids: number[]): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const all = (await trx(TABLE).select('id')).map((row: { id: number }) => Number(row.id));
      const same = ids.length === all.length && new Set(ids).size === ids.length && ids.every((id) => all.includes(id));
      if (!same) return false;
      for (const [index, id] of ids.entries())
        await trx(TABLE)
          .where({ id })
          .update({ priority: index + 1 });
      return true;
    });
  }

  async recordSuccess(id: number): Promise<void> {
    await this.db(TABLE)
      .where({ id })
      .update({ auth_failures: 0, password_refused: false, last_success_at: new Date().toISOString() });
  }

  /** Counts a refused password; flags the network once the limit is reached. Returns the flag. */
  async recordAuthFailure(id: number, limit: number): Promise<boolean> {
    await this.db(TABLE).where({ id }).increment('auth_failures', 1);
    await this.db(TABLE).where({ id }).andWhere('auth_failures', '>=', limit).update({ password_refused: true });
    return Boolean((await this.get(id))?.passwordRefused);
  }
}

/** A row as SQLite gives it back (booleans are 0/1). */
interface NetworkRow {
  id: number;
  ssid: Buffer;
  passphrase: string | null;
  hidden: number;
  priority: number;
  auth_failures: number;
  password_refused: number;
  last_success_at: string | null;
}

function toNetwork(row: NetworkRow): SavedNetwork {
  return {
    id: Number(row.id),
    ssid: new Uint8Array(row.ssid),
    passphrase: row.passphrase ?? '',
    hidden: Boolean(row.hidden),
    priority: Number(row.priority),
    authFailures: Number(row.auth_failures),
    passwordRefused: Boolean(row.password_refused),
    lastSuccessAt: row.last_success_at ?? null,
  };
}
