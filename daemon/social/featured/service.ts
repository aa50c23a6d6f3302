/**
 * Featuring on one's profile, Mastodon's rules: at most 10 hashtags (any valid name, used or not
 * yet); endorsing only accounts one follows, never oneself.
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { PageQuery } from '../store/paging.js';
import type { RelationshipsService } from '../relationships/service.js';
import type { RelationshipRow } from '../relationships/repo.js';
import { hashtagNames } from '../tags/parse.js';
import type { TagsRepo } from '../tags/repo.js';
import type { TagView } from '../tags/service.js';
import { MAX_FEATURED_TAGS, type FeaturedRepo, type FeaturedTagRow } from './repo.js';

export const tooManyFeatured = () =>
  unprocessable(`Validation failed: You can only feature up to ${MAX_FEATURED_TAGS} hashtags`);

export class FeaturedService {
  constructor(
    private readonly repo: FeaturedRepo,
    private readonly hashtags: TagsRepo,
    private readonly relationships: RelationshipsService,
    private readonly now: () => number,
  ) {}

  tags(accountId: string): Promise<FeaturedTagRow[]> {
    return this.repo.tags(accountId);
  }

  /** Features a hashtag by name (made if new); answers its featured row. */
  async featureTag(accountId: string, rawName: string): Promise<FeaturedTagRow> {
    const [name] = hashtagNames([rawName]);
    if (!name) throw unprocessable('Validation failed: Tag is invalid');
    const tag = await this.hashtags.ensure(name);
    if (!(await this.repo.feature(accountId, tag.id))) throw tooManyFeatured();
    return (await this.repo.tags(accountId)).find(
      (featured) => featured.name.toLowerCase() === tag.name.toLowerCase(),
    )!;
  }

  async unfeature(accountId: string, featuredId: string): Promise<void> {
    if (!(await this.repo.unfeatureById(accountId, featuredId))) throw notFound();
  }

  /** Hashtags the account used lately and does not feature yet, as it sees them. */
  async suggestions(accountId: string): Promise<TagView[]> {
    const at = this.now();
    const suggested = await this.repo.suggestions(accountId);
    const following = await this.hashtags.followedAmong(
      accountId,
      suggested.map((tag) => tag.id),
    );
    return Promise.all(
      suggested.map(async (tag) => ({
        tag,
        history: await this.hashtags.history(tag.id, at),
        at,
        following: following.has(tag.id),
        featuring: false,
      })),
    );
  }

  /** Endorses or unendorses a known account; answers the relationship after. */
  async setEndorsed(accountId: string, targetId: string, on: boolean): Promise<RelationshipRow> {
    await this.relationships.relationship(accountId, targetId);
    if (on) await this.endorse(accountId, targetId);
    else await this.repo.unendorse(accountId, targetId);
    return this.relationships.relationship(accountId, targetId);
  }

  endorsed(accountId: string, page: PageQuery): Promise<Array<{ edge_id: string; account_id: string }>> {
    return this.repo.endorsed(accountId, page);
  }

  private async endorse(accountId: string, targetId: string): Promise<void> {
    if (accountId === targetId) throw unprocessable('Validation failed: You cannot feature yourself');
    if (!(await this.repo.endorse(accountId, targetId)))
      throw unprocessable('Validation failed: You must be already following the person you want to endorse');
  }
}
