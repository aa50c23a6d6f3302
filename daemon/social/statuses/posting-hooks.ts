/** What posting and editing take in, and the resources (media, hashtags, polls) that take part in them. */
import type { Knex } from 'knex';
import type { AccountRow } from '../accounts/repo.js';
import type { StatusRow } from './repo.js';
import type { PollInput } from '../polls/params.js';

export interface NewStatus {
  status?: string;
  spoiler_text?: string;
  sensitive?: boolean;
  visibility?: string;
  language?: string;
  in_reply_to_id?: string;
  media_ids?: string[];
  poll?: PollInput;
  appId: string | null;
}

/**
 * A resource that takes part in posting (media, hashtags): `prepare` checks the input before
 * anything is written (throwing 422) and returns a step run inside the status's transaction;
 * `content`, its part in the status's HTML (from the status's text), is applied before the status
 * is written, so that the row is written once.
 */
export interface StatusCreateHook {
  prepare(
    authorId: string,
    input: NewStatus,
    text: string,
  ): Promise<((trx: Knex, statusId: string) => Promise<void>) | null>;
  content?(html: string, text: string): string;
}

/**
 * A resource that takes part in editing (polls, hashtags): as StatusCreateHook, for an existing
 * status; the step runs after the new text is stored, before the new version is kept in the history.
 */
export interface StatusEditHook {
  prepare(
    authorId: string,
    statusId: string,
    input: Omit<NewStatus, 'visibility' | 'in_reply_to_id' | 'appId'>,
  ): Promise<((trx: Knex) => Promise<void>) | null>;
}

export interface RemoteAccountFinder {
  account(username: string, domain: string): Promise<AccountRow | undefined>;
}

/** The resources that take part in posting (media, hashtags, polls) and editing (polls). */
export interface StatusHooks {
  create: readonly StatusCreateHook[];
  edit: readonly StatusEditHook[];
}

/**
 * A peer's new status as federation read it: its columns (sanitized content, the audience as a
 * visibility, `created_at` when the peer says it was published), the local id of the status it
 * answers when that is known here, and the accounts it mentions (`domain` null for ours: only
 * they are notified).
 */
export interface PeerStatus {
  columns: Pick<
    StatusRow,
    | 'account_id'
    | 'uri'
    | 'url'
    | 'text'
    | 'content'
    | 'spoiler_text'
    | 'sensitive'
    | 'visibility'
    | 'language'
    | 'emojis'
    | 'created_at'
  >;
  inReplyToId: string | null;
  mentions: ReadonlyArray<{ id: string; domain: string | null }>;
}

/** A step of a peer's status run inside its transaction (its media, hashtags, poll). */
export type PeerStatusStep = (trx: Knex, statusId: string) => Promise<void>;
