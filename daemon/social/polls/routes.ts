/** /api/v1/polls: a poll, and voting in it. */
import { params, pathId, type Params } from '../http/params.js';
import { optionalViewerId, viewerId, type Routes } from '../http/routes.js';
import { read, write } from '../oauth/scopes.js';
import type { PollRow } from './repo.js';
import type { PollsService } from './service.js';
import { serializePoll } from './serialize.js';

export function pollRoutes(routes: Routes, polls: PollsService, now: () => number): void {
  const render = async (poll: PollRow, viewer: string | null) =>
    serializePoll(poll, viewer, viewer === null ? null : await polls.ownChoices(poll.id, viewer), now());

  routes.get('/api/v1/polls/:id', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    ctx.body = await render(await polls.visible(pathId(ctx), viewer), viewer);
  });

  routes.post('/api/v1/polls/:id/votes', { scopes: write('statuses') }, async (ctx) => {
    const viewer = viewerId(ctx);
    const poll = await polls.vote(pathId(ctx), viewer, choicesParam(params(ctx)));
    ctx.body = await render(poll, viewer);
  });
}

/** `choices[]` as form values, or a JSON array of indexes (numbers or strings). */
function choicesParam(p: Params): string[] {
  const raw = p['choices[]'] ?? p.choices;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((item) => typeof item === 'string' || typeof item === 'number').map(String);
}
