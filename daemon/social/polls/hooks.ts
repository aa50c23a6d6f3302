/** Polls' part in statuses: a poll checked and stored when posting, `poll` filled when rendering. */
import type { StatusCreateHook, StatusEditHook } from '../statuses/service.js';
import type { StatusDecorator } from '../statuses/serialize.js';
import type { PollsService } from './service.js';
import { serializePoll } from './serialize.js';

export function pollsCreateHook(polls: PollsService): StatusCreateHook {
  return {
    async prepare(authorId, input) {
      const poll = input.poll;
      if (!poll) return null;
      const options = polls.check(poll, Boolean(input.media_ids?.length));
      return async (trx, statusId) => {
        await polls.attach(trx, statusId, authorId, poll, options);
      };
    },
  };
}

export function pollsEditHook(polls: PollsService): StatusEditHook {
  return {
    async prepare(authorId, statusId, input) {
      const poll = input.poll;
      if (!poll) return null;
      const options = polls.check(poll, false);
      return async (trx) => {
        await polls.edit(trx, statusId, authorId, poll, options);
      };
    },
  };
}

export function pollsDecorator(polls: PollsService, now: () => number): StatusDecorator {
  return async (all, viewerId) => {
    const rendered = all.filter(({ row }) => row.poll_ends !== null);
    if (rendered.length === 0) return;
    const rows = new Map(
      (
        await polls.repo.ofStatuses(
          rendered.map(({ row }) => row.id),
          viewerId,
        )
      ).map((poll) => [poll.status_id, poll]),
    );
    const at = now();
    for (const { row, json } of rendered) {
      const poll = rows.get(row.id);
      if (poll)
        json.poll = serializePoll(
          poll,
          viewerId,
          poll.own_votes === null ? null : (JSON.parse(poll.own_votes) as number[]),
          at,
        );
    }
  };
}
