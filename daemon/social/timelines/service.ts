/** The status timelines: home, a list's, public and hashtag ones, as id pages for the renderer. */
import type { PageQuery } from '../store/paging.js';
import { normalizeTag } from '../tags/parse.js';
import type { TagsRepo } from '../tags/repo.js';
import type { PublicOptions, TagOptions, TimelinesRepo } from './repo.js';

type StatusIds = Array<{ id: string }>;

/** A hashtag timeline's names as given: the path's tag or any of `any`, with all of `all`, none of `none`. */
export interface TagNames {
  hashtag: string;
  any: string[];
  all: string[];
  none: string[];
}

export type TagIds = Pick<TagOptions, 'any' | 'all' | 'none'>;

export class TimelinesService {
  constructor(
    private readonly repo: TimelinesRepo,
    private readonly hashtags: TagsRepo,
  ) {}

  home(viewerId: string, page: PageQuery): Promise<StatusIds> {
    return this.repo.home(viewerId, page);
  }

  list(ownerId: string, listId: string, page: PageQuery): Promise<StatusIds> {
    return this.repo.list(ownerId, listId, page);
  }

  public(options: PublicOptions, viewerId: string | null, page: PageQuery): Promise<StatusIds> {
    return this.repo.public(options, viewerId, page);
  }

  /** The tags a hashtag timeline names, or null when no status can match (no known tag to show, or a required one unknown). */
  async tagsNamed(names: TagNames): Promise<TagIds | null> {
    const any = await this.tagIds([names.hashtag, ...names.any]);
    const all = await this.tagIds(names.all);
    if (any.length === 0 || all.length < new Set(names.all.map(normalizeTag)).size) return null;
    return { any, all, none: await this.tagIds(names.none) };
  }

  tag(options: PublicOptions & TagIds, viewerId: string | null, page: PageQuery): Promise<StatusIds> {
    return this.repo.tag(options, viewerId, page);
  }

  private async tagIds(names: string[]): Promise<number[]> {
    return names.length ? (await this.hashtags.byNames(names.map(normalizeTag))).map((tag) => tag.id) : [];
  }
}
