/**
 * Polls in ActivityPub, as Mastodon writes and reads them: a status with a poll is a `Question`
 * whose options are `oneOf` (single choice) or `anyOf` (multiple) Notes named by their titles
 * with their vote counts as `replies.totalItems`; a vote is a Note with only a `name` (the
 * option), `inReplyTo` the Question, sent in a Create to the poll's author.
 */
import type { PollRow } from '../../polls/repo.js';
import { isEnded } from '../../polls/service.js';
import { MAX_FLAGGED_CHOICES } from '../../statuses/repo.js';
import { asArray, idOf, isObject, isoSeconds, str, type Json } from './ld.js';
import { withContext } from './context.js';

/** A peer's poll as we keep it. */
export interface ParsedPoll {
  options: string[];
  tallies: number[];
  multiple: boolean;
  votesCount: number;
  votersCount: number | null;
  expiresAt: string | null;
}

const MAX_OPTION_LENGTH = 500;

/** Makes a rendered Note the Question of its poll (hidden totals stay hidden until the end). */
export function asQuestion(note: Json, poll: PollRow, now: number): void {
  const ended = isEnded(poll, now);
  const tallies = JSON.parse(poll.tallies) as number[];
  const showTotals = !poll.hide_totals || ended;
  note.type = 'Question';
  note[poll.multiple ? 'anyOf' : 'oneOf'] = (JSON.parse(poll.options) as string[]).map((name, i) => ({
    type: 'Note',
    name,
    replies: { type: 'Collection', totalItems: showTotals ? (tallies[i] ?? 0) : null },
  }));
  if (poll.expires_at) note.endTime = isoSeconds(poll.expires_at);
  if (ended && poll.expires_at) note.closed = isoSeconds(poll.expires_at);
  if (poll.voters_count !== null) note.votersCount = poll.voters_count;
}

/** The poll of a peer's Question (null when it has none we can use). */
export function parsePoll(object: Json): ParsedPoll | null {
  const multiple = object.anyOf !== undefined;
  const items = asArray(multiple ? object.anyOf : object.oneOf)
    .filter(isObject)
    .slice(0, MAX_FLAGGED_CHOICES);
  const options = items.map((item) => (str(item.name) ?? '').slice(0, MAX_OPTION_LENGTH));
  if (options.length < 1 || options.some((name) => name === '')) return null;
  const tallies = items.map((item) => count(isObject(item.replies) ? item.replies.totalItems : undefined) ?? 0);
  const end = Date.parse(str(object.closed) ?? str(object.endTime) ?? '');
  return {
    options,
    tallies,
    multiple,
    votesCount: tallies.reduce((sum, n) => sum + n, 0),
    votersCount: count(object.votersCount),
    expiresAt: Number.isFinite(end) ? new Date(end).toISOString() : null,
  };
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** A peer's vote: a Note answering a Question with an option's `name` and no content. */
export interface ParsedVote {
  uri: string;
  name: string;
  questionUri: string;
}

export function parseVote(object: unknown): ParsedVote | null {
  if (!isObject(object)) return null;
  const uri = idOf(object);
  const name = str(object.name);
  const questionUri = idOf(object.inReplyTo);
  if (!uri || name === null || !questionUri || (str(object.content) ?? '') !== '') return null;
  return { uri, name, questionUri };
}

/** Our account's vote for one option of a peer's poll. */
export function voteActivity(
  voterUri: string,
  voteId: string,
  authorUri: string,
  questionUri: string,
  name: string,
): Json {
  const id = `${voterUri}#votes/${voteId}`;
  return withContext({
    id: `${id}/activity`,
    type: 'Create',
    actor: voterUri,
    to: authorUri,
    object: { id, type: 'Note', name, attributedTo: voterUri, to: authorUri, inReplyTo: questionUri },
  });
}
