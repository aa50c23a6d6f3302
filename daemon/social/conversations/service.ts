/** An account's conversations (direct messages): its list, marking one read, taking one off it. */
import { notFound } from '../../lib/errors.js';
import type { PageQuery } from '../store/paging.js';
import type { ConversationRow, ConversationsRepo } from './repo.js';

export class ConversationsService {
  constructor(private readonly repo: ConversationsRepo) {}

  page(accountId: string, page: PageQuery): Promise<ConversationRow[]> {
    return this.repo.page(accountId, page);
  }

  /** One of the account's conversations as it is now, if listed. */
  find(accountId: string, id: string): Promise<ConversationRow | undefined> {
    return this.repo.one(accountId, id);
  }

  /** The list entries a direct status moved: one per local participant (author or mentioned). */
  async entriesOfStatus(statusId: string): Promise<Array<{ accountId: string; id: string }>> {
    return (await this.repo.ofStatus(statusId)).map((row) => ({ accountId: row.account_id, id: row.id }));
  }

  /** Marks one of the account's conversations read (404 if not its own); answers it as it is now, if still listed. */
  async markRead(accountId: string, id: string): Promise<ConversationRow | undefined> {
    if (!(await this.repo.markRead(accountId, id))) throw notFound();
    return this.repo.one(accountId, id);
  }

  /** Takes it off the account's list (it comes back with the next message); 404 if not its own. */
  async remove(accountId: string, id: string): Promise<void> {
    if (!(await this.repo.remove(accountId, id))) throw notFound();
  }
}
