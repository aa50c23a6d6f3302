/**
 * Account JSON kept by (id, render version): the same senders on every notification page and one
 * author on every status are rendered once, and their rows are not even read again while their
 * version holds (a trigger moves it on every change to the account, whoever writes it). Bounded;
 * the oldest entries go first.
 */
import { markRendered } from '../../http/json-text.js';
import { serializeAccount, type AccountJson } from './serialize.js';
import type { AccountRow, AccountsRepo } from './repo.js';

export interface RenderedAccount { version: number; json: Readonly<AccountJson> }

export class RenderedAccounts {
  private readonly byId = new Map<string, RenderedAccount>();

  constructor(private readonly repo: AccountsRepo, private readonly baseUrl: string, private readonly capacity = 2000) {}

  /** The accounts that exist among `ids`, rendered (frozen: they are shared between responses). */
  async byIds(ids: readonly string[]): Promise<Map<string, RenderedAccount>> {
    // What is held now answers even if a concurrent request evicts it before the rows come back.
    const held = new Map<string, RenderedAccount>();
    const known: Record<string, number> = {};
    for (const id of ids) {
      const entry = this.byId.get(id);
      if (entry) held.set(id, entry);
      known[id] = entry?.version ?? -1;
    }
    const out = new Map<string, RenderedAccount>();
    for (const { id, version, row } of await this.repo.changedRows(known)) {
      const entry = row === null ? held.get(id) : this.store(id, version, row);
      if (entry) out.set(id, entry);
    }
    return out;
  }

  private store(id: string, version: number, row: AccountRow): RenderedAccount {
    const entry = { version, json: markRendered(serializeAccount(row, this.baseUrl)) };
    if (!this.byId.has(id) && this.byId.size >= this.capacity) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(id, entry);
    return entry;
  }
}
