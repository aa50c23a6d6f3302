/**
 * Featuring on one's profile, Mastodon's rules: at most 10 hashtags (any valid name, used or not
 * yet); endorsing only accounts one follows, never oneself.
 */
import { unprocessable } from '../../lib/errors.js';
import { MAX_FEATURED_TAGS, type FeaturedRepo } from './repo.js';

export const tooManyFeatured = () => unprocessable(`Validation failed: You can only feature up to ${MAX_FEATURED_TAGS} hashtags`);

export async function endorse(repo: FeaturedRepo, accountId: string, targetId: string): Promise<void> {
  if (accountId === targetId) throw unprocessable('Validation failed: You cannot feature yourself');
  if (!(await repo.endorse(accountId, targetId))) throw unprocessable('Validation failed: You must be already following the person you want to endorse');
}
