/**
 * Account JSON kept while its row is unchanged: a row read again as it was (the same senders on
 * every notification page, one author on every status) is not parsed, built or serialized again.
 * An entry holds the row text it was rendered from and answers only for that exact text, so any
 * change to the account renders anew and nothing is ever stale. The oldest entries go first once
 * the bound is reached.
 */
import { markRendered } from '../../http/json-text.js';
import { serializeAccount, type AccountJson } from './serialize.js';
import type { AccountRow } from './repo.js';

interface Entry { rowText: string; json: Readonly<AccountJson> }

export class RenderedAccounts {
  private readonly byId = new Map<string, Entry>();

  constructor(private readonly baseUrl: string, private readonly capacity = 2000) {}

  /** The account JSON of a row text from AccountsRepo.rowTextsByIds (frozen: it is shared). */
  of(id: string, rowText: string): Readonly<AccountJson> {
    // Comparing the texts is a memcmp; hashing them as keys cost more than the rest of a hit.
    const known = this.byId.get(id);
    if (known?.rowText === rowText) return known.json;
    const json = markRendered(serializeAccount(JSON.parse(rowText) as AccountRow, this.baseUrl));
    if (!known && this.byId.size >= this.capacity) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(id, { rowText, json });
    return json;
  }
}
