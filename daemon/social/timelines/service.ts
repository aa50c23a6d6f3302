/** The status timelines: home, a list's, public and hashtag ones, as id pages for the renderer. */
import type { PageQuery } from '../store/paging.js';
import { normalizeTag } from '../tags/parse.js';
import type { TagsRepo } from '../tags/repo.js';
import type { PublicOptions, TimelinesRepo } from './repo.js';

type StatusIds = Array<{ id: string }>;

/** A hashtag timeline: the path's tag or any of `any`, with all of `all`, none of `none` (names as given). */
export interface TagQuery extends PublicOptions { hashtag: string; any: string[]; all: string[]; none: string[] }

export class TimelinesService {
  constructor(private readonly repo: TimelinesRepo, private readonly tags: TagsRepo) {}

  home(viewerId: string, page: PageQuery): Promise<StatusIds> {
    return this.repo.home(viewerId, page);
  }

  list(ownerId: string, listId: string, page: PageQuery): Promise<StatusIds> {
    return this.repo.list(ownerId, listId, page);
  }

  public(options: PublicOptions, viewerId: string | null, page: PageQuery): Promise<StatusIds> {
    return this.repo.public(options, viewerId, page);
  }

  /** The page, or null when no status can match (no known tag to show, or a required one unknown). */
  async tag(query: TagQuery, viewerId: string | null, page: PageQuery): Promise<StatusIds | null> {
    const any = await this.tagIds([query.hashtag, ...query.any]);
    const all = await this.tagIds(query.all);
    if (any.length === 0 || all.length < new Set(query.all.map(normalizeTag)).size) return null;
    const none = await this.tagIds(query.none);
    const { local, remote, onlyMedia } = query;
    return this.repo.tag({ local, remote, onlyMedia, any, all, none }, viewerId, page);
  }

  private async tagIds(names: string[]): Promise<number[]> {
    return names.length ? (await this.tags.byNames(names.map(normalizeTag))).map((tag) => tag.id) : [];
  }
}
