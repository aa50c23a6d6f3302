/** The Poll entity (Mastodon 4.5 REST::PollSerializer). */
import type { PollRow } from './repo.js';
import { isEnded } from './service.js';

export interface PollJson {
  id: string;
  expires_at: string | null;
  expired: boolean;
  multiple: boolean;
  votes_count: number;
  voters_count: number | null;
  options: Array<{ title: string; votes_count: number | null }>;
  emojis: unknown[];
  voted?: boolean;
  own_votes?: number[];
}

/**
 * `ownVotes`: the viewer's choices (null without a viewer). Hidden totals show as null until the
 * poll ends, to its author too; the total number of votes always shows.
 */
export function serializePoll(
  poll: PollRow,
  viewerId: string | null,
  ownVotes: number[] | null,
  now: number,
): PollJson {
  const expired = isEnded(poll, now);
  const tallies = JSON.parse(poll.tallies) as number[];
  const showTotals = !poll.hide_totals || expired;
  const json: PollJson = {
    id: poll.id,
    expires_at: poll.expires_at,
    expired,
    multiple: Boolean(poll.multiple),
    votes_count: poll.votes_count,
    voters_count: poll.voters_count,
    options: (JSON.parse(poll.options) as string[]).map((title, i) => ({
      title,
      votes_count: showTotals ? (tallies[i] ?? 0) : null,
    })),
    emojis: [],
  };
  if (viewerId !== null) {
    const own = ownVotes ?? [];
    json.voted = own.length > 0 || viewerId === poll.account_id;
    json.own_votes = own;
  }
  return json;
}
