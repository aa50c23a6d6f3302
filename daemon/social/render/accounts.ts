/**
 * Account JSON kept by (id, render version): the same senders on every notification page and one
 * author on every status are rendered once, and their rows are not even read again while their
 * version holds (a trigger moves it on every change to the account, whoever writes it).
 */
import { markRendered } from './json-text.js';
import { VersionedCache, type ChangedRow, type Held } from './versioned-cache.js';
import { serializeAccount, type AccountJson } from '../accounts/serialize.js';
import type { AccountRow, AccountsRepo } from '../accounts/repo.js';

export interface RenderedAccount {
  version: number;
  json: Readonly<AccountJson>;
}

export class RenderedAccounts {
  private readonly cache: VersionedCache<AccountRow, Readonly<AccountJson>>;

  constructor(
    private readonly repo: AccountsRepo,
    baseUrl: string,
    capacity = 2000,
  ) {
    this.cache = new VersionedCache((row) => markRendered(serializeAccount(row, baseUrl)), capacity);
  }

  /** The accounts that exist among `ids`, rendered (frozen: they are shared between responses). */
  async byIds(ids: readonly string[]): Promise<Map<string, RenderedAccount>> {
    if (ids.length === 0) return new Map();
    const held = this.hold(ids);
    return this.settle(held, await this.repo.changedRows(held.known));
  }

  /** What is held for `ids`: `byIds`' first half, for a read beside another cache's (render/cache.ts). */
  hold(ids: readonly string[]): Held<Readonly<AccountJson>> {
    return this.cache.hold(ids);
  }

  settle(held: Held<Readonly<AccountJson>>, rows: ReadonlyArray<ChangedRow<AccountRow>>): Map<string, RenderedAccount> {
    const loaded = this.cache.settle(held, rows);
    return new Map(loaded.map(({ changed, version, value }) => [changed.id, { version, json: value }]));
  }
}
