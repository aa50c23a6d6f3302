/**
 * Hashtags as a viewer sees them: any valid name is a hashtag (unsaved until someone uses,
 * follows or features it), with its week of use and whether the viewer follows and features it.
 */
import type { Knex } from 'knex';
import type { PageQuery } from '../store/paging.js';
import type { FeaturedRepo } from '../featured/repo.js';
import { tooManyFeatured } from '../featured/service.js';
import type { TagRow, TagsRepo } from './repo.js';

export type TagHistory = Array<{ day: string; uses: number; accounts: number }>;

/** A tag with what its rendering needs; `at` is the time its history was counted up to. */
export interface TagView {
  tag: Pick<TagRow, 'id' | 'name'>;
  history: TagHistory;
  at: number;
  following: boolean;
  featuring: boolean;
}

interface Known {
  following?: boolean;
  featuring?: boolean;
}

export class TagsService {
  constructor(
    private readonly tags: TagsRepo,
    private readonly featured: FeaturedRepo,
    private readonly now: () => number,
  ) {}

  /** A tag by (valid) name, saved or not. */
  async lookup(name: string, viewerId: string | null): Promise<TagView> {
    // A name nobody used yet is still a hashtag (Mastodon answers it unsaved, with no history).
    const tag = (await this.tags.byNames([name]))[0] ?? { id: 0, name };
    return this.view(tag, viewerId);
  }

  /** Follows or unfollows a tag (made if new): its public posts join or leave the viewer's home feed. */
  async setFollowing(viewerId: string, name: string, following: boolean): Promise<TagView> {
    const tag = await this.tags.ensure(name);
    if (following) await this.tags.follow(viewerId, tag.id);
    else await this.tags.unfollow(viewerId, tag.id);
    return this.view(tag, viewerId, { following });
  }

  /** Features or unfeatures a tag (made if new) on the viewer's profile, within the featuring limit. */
  async setFeaturing(viewerId: string, name: string, featuring: boolean): Promise<TagView> {
    const tag = await this.tags.ensure(name);
    if (!featuring) await this.featured.unfeatureTag(viewerId, tag.id);
    else if (!(await this.featured.feature(viewerId, tag.id))) throw tooManyFeatured();
    return this.view(tag, viewerId, { featuring });
  }

  /** The tags the viewer follows, newest follow first, each with the follow's id for paging. */
  async followed(viewerId: string, page: PageQuery): Promise<Array<TagView & { edgeId: string }>> {
    const rows = await this.tags.followed(viewerId, page);
    const featuring = await this.featured.featuring(
      viewerId,
      rows.map((tag) => tag.id),
    );
    return Promise.all(
      rows.map(async (tag) => ({
        ...(await this.view(tag, viewerId, { following: true, featuring: featuring.has(tag.id) })),
        edgeId: tag.edge_id,
      })),
    );
  }

  /** Several tags as the viewer sees them (search results), with two lookups for all of them. */
  async views(tags: ReadonlyArray<Pick<TagRow, 'id' | 'name'>>, viewerId: string | null): Promise<TagView[]> {
    const ids = tags.map((tag) => tag.id).filter((id) => id > 0);
    const [following, featuring] =
      viewerId === null || ids.length === 0
        ? [new Set<number>(), new Set<number>()]
        : await Promise.all([this.tags.followedAmong(viewerId, ids), this.featured.featuring(viewerId, ids)]);
    return Promise.all(
      tags.map((tag) =>
        this.view(tag, viewerId, { following: following.has(tag.id), featuring: featuring.has(tag.id) }),
      ),
    );
  }

  /** Tags a status with `names` (made if new), inside the transaction that stores it. */
  tagStatus(trx: Knex, statusId: string, names: readonly string[]): Promise<void> {
    return this.tags.tagStatus(trx, statusId, names);
  }

  /** Replaces a status's hashtags (a peer's Update of its note). */
  retagStatus(trx: Knex, statusId: string, names: readonly string[]): Promise<void> {
    return this.tags.retagStatus(trx, statusId, names);
  }

  /** The hashtag names of each status, alphabetically. */
  namesOf(statusIds: readonly string[]): Promise<Array<{ status_id: string; name: string }>> {
    return this.tags.ofStatuses(statusIds);
  }

  /** The viewer's following and featuring, looked up unless known. */
  private async view(tag: Pick<TagRow, 'id' | 'name'>, viewerId: string | null, known: Known = {}): Promise<TagView> {
    const saved = tag.id > 0 && viewerId !== null;
    const following = known.following ?? (saved && (await this.tags.followedAmong(viewerId, [tag.id])).has(tag.id));
    const featuring = known.featuring ?? (saved && (await this.featured.featuring(viewerId, [tag.id])).has(tag.id));
    const history = tag.id > 0 ? await this.tags.history(tag.id, this.now()) : [];
    return { tag, history, at: this.now(), following, featuring };
  }
}
