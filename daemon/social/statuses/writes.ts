/**
 * What every door that writes statuses shares (a local post or edit, a peer's): a new status's
 * rows and counters, the notifications and event after its commit, and an edit kept in the history.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import type { AccountsRepo } from '../accounts/repo.js';
import type { NotificationsService } from '../notifications/service.js';
import type { StatusesRepo, StatusRow } from './repo.js';
import type { StatusEditsRepo } from './edits-repo.js';
import type { ConversationsRepo } from '../conversations/repo.js';
import type { BoundSql } from '../../store/dialect.js';

/** A new status's own columns; its thread's are taken from the status it answers. */
export type NewStatusRow = Record<string, unknown> & { id: string; account_id: string; created_at: string };

/** A status's text after an edit (`edited_at` and `updated_at` are set here). */
export interface EditedText {
  text: string;
  content: string;
  spoiler_text: string;
  sensitive: number;
  emojis: string;
  language?: string | null;
}

export class StatusWrites {
  constructor(
    private readonly ctx: SocialContext,
    private readonly repo: StatusesRepo,
    private readonly edits: StatusEditsRepo,
    private readonly accounts: AccountsRepo,
    private readonly conversations: ConversationsRepo,
    private readonly notifications: NotificationsService,
  ) {}

  /**
   * A new status: its row, in its parent's conversation or a new one, its mentions, the
   * resources' steps (media, hashtags, poll), the parent's reply count and the author's counters,
   * last: by `countLast` when given (it sends the counters' change with its own last statement).
   */
  async insert(
    trx: Knex,
    row: NewStatusRow,
    parent: StatusRow | null,
    mentionedIds: readonly string[],
    steps: ReadonlyArray<((trx: Knex, statusId: string) => Promise<void>) | null>,
    countLast?: (counters: BoundSql) => Promise<void>,
  ): Promise<void> {
    const replyTo = { in_reply_to_id: parent?.id ?? null, in_reply_to_account_id: parent?.account_id ?? null };
    if (parent?.conversation_id)
      await this.repo.insertStatus(trx, { ...row, ...replyTo, conversation_id: parent.conversation_id });
    else await this.repo.insertStartingConversation(trx, { ...row, ...replyTo });
    await this.mention(trx, row.id, String(row.visibility), mentionedIds);
    for (const step of steps) await step?.(trx, row.id);
    if (parent) await this.repo.adjust(trx, parent.id, 'replies_count', 1);
    if (countLast) await countLast(this.accounts.statusPostedChange(row.account_id, row.created_at));
    else await this.accounts.statusPosted(trx, row.account_id, row.created_at);
  }

  /**
   * A status's mentions of `accountIds` (those it has already are kept); a direct status reaches
   * the conversation lists of the accounts it newly mentions and of its author.
   */
  async mention(trx: Knex, statusId: string, visibility: string, accountIds: readonly string[]): Promise<void> {
    const added = await this.repo.insertMentions(trx, statusId, accountIds);
    if (added.length && visibility === 'direct') await this.conversations.reach(trx, statusId, added);
  }

  /**
   * After a new status's commit: mentions first (a direct status held back by its recipient's
   * policy leaves their conversations before the streams read them), then status.created (`local`:
   * written here, not a peer's: nothing of it to fetch).
   */
  async published(
    status: { id: string; authorId: string; local: boolean },
    recipientIds: readonly string[],
  ): Promise<void> {
    await this.notifyMentions(status.id, status.authorId, recipientIds);
    this.ctx.events.emit('status.created', { statusId: status.id, accountId: status.authorId, local: status.local });
  }

  /** The accounts a status mentions are told, each under their notification policy. */
  async notifyMentions(id: string, authorId: string, recipientIds: readonly string[]): Promise<void> {
    await this.notifications.notifyEach(recipientIds, {
      fromId: authorId,
      type: 'mention',
      statusId: id,
      activityId: id,
    });
  }

  /**
   * An edit: the version before kept in the history, the new text, `steps` (mentions, media,
   * hashtags, poll) in the same transaction, the new version kept; then status.updated.
   */
  async edit(
    authorId: string,
    id: string,
    text: EditedText,
    steps: ReadonlyArray<((trx: Knex) => Promise<void>) | null>,
  ): Promise<void> {
    const now = nowIso(this.ctx.now());
    await this.ctx.db.transaction(async (trx) => {
      await this.edits.beforeEdit(trx, id);
      await this.repo.updateEdited(trx, id, { ...text, edited_at: now, updated_at: now });
      for (const step of steps) await step?.(trx);
      await this.edits.afterEdit(trx, id);
    });
    this.ctx.events.emit('status.updated', { statusId: id, accountId: authorId });
  }
}
