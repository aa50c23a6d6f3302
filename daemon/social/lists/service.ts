/**
 * The list rules (Mastodon's): a title, a replies policy (followed, list or none), exclusive or
 * not; at most 50 lists an account; members are accounts the owner follows or has asked to follow
 * (or the owner), added all or none; unfollowing takes an account off the owner's lists.
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { ListsRepo, type ListRow } from './repo.js';

export const REPLIES_POLICIES = ['followed', 'list', 'none'] as const;
export const MAX_LISTS = 50;

export interface ListInput {
  title?: string;
  replies_policy?: string;
  exclusive?: boolean;
}

export class ListsService {
  readonly repo: ListsRepo;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new ListsRepo(ctx);
  }

  // The reads routes answer with, as the repo makes them.
  holding(...args: Parameters<ListsRepo['holding']>): ReturnType<ListsRepo['holding']> {
    return this.repo.holding(...args);
  }
  members(...args: Parameters<ListsRepo['members']>): ReturnType<ListsRepo['members']> {
    return this.repo.members(...args);
  }
  ofOwner(...args: Parameters<ListsRepo['ofOwner']>): ReturnType<ListsRepo['ofOwner']> {
    return this.repo.ofOwner(...args);
  }

  async get(ownerId: string, id: string): Promise<ListRow> {
    const list = await this.repo.one(ownerId, id);
    if (!list) throw notFound();
    return list;
  }

  async create(ownerId: string, input: ListInput): Promise<ListRow> {
    const row = validated(input, { title: '', replies_policy: 'list', exclusive: 0 });
    if ((await this.repo.count(ownerId)) >= MAX_LISTS)
      throw unprocessable(`Validation failed: You cannot have more than ${MAX_LISTS} lists`);
    return this.get(ownerId, await this.repo.insert(ownerId, row, nowIso(this.ctx.now())));
  }

  async update(ownerId: string, id: string, input: ListInput): Promise<ListRow> {
    const current = await this.get(ownerId, id);
    await this.repo.update(ownerId, id, validated(input, current));
    return this.get(ownerId, id);
  }

  async remove(ownerId: string, id: string): Promise<void> {
    if (!(await this.repo.remove(ownerId, id))) throw notFound();
  }

  async addMembers(ownerId: string, id: string, accountIds: readonly string[]): Promise<void> {
    const list = await this.get(ownerId, id);
    const unique = [...new Set(accountIds)];
    if (unique.length === 0) return;
    if (!(await this.repo.allExist(unique))) throw notFound();
    if ((await this.repo.unrelated(ownerId, unique)).length > 0)
      throw unprocessable('Validation failed: Account must be followed before being added to a list');
    if (!(await this.repo.addMembers(list.id, unique, nowIso(this.ctx.now()))))
      throw unprocessable('Validation failed: Account has already been taken');
  }

  async removeMembers(ownerId: string, id: string, accountIds: readonly string[]): Promise<void> {
    const list = await this.get(ownerId, id);
    await this.repo.removeMembers(list.id, accountIds);
  }
}

function validated(input: ListInput, current: Omit<ListRow, 'id'>): Omit<ListRow, 'id'> {
  const title = input.title !== undefined ? input.title.trim() : current.title;
  if (!title) throw unprocessable("Validation failed: Title can't be blank");
  const policy = input.replies_policy ?? current.replies_policy;
  if (!(REPLIES_POLICIES as readonly string[]).includes(policy))
    throw unprocessable('Validation failed: Replies policy is not included in the list');
  return {
    title,
    replies_policy: policy,
    exclusive: input.exclusive === undefined ? current.exclusive : input.exclusive ? 1 : 0,
  };
}
