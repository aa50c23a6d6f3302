/**
 * The rules of GET /api/v2/search: accounts, statuses and hashtags; paging (offset, min_id, max_id)
 * only with a `type`; without a token search still works, but only exact matches for queries under
 * 5 characters, no offset and no `resolve` (401); `from:` with an unsupported value is 422 and with
 * an unknown account 404; `exclude_unreviewed` drops unreviewed hashtags but an exact match.
 */
import { notFound, unauthorized, unprocessable, badRequest } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { TagsRepo, type TagRow } from '../tags/repo.js';
import { parseFrom, parseQuery, searchTerms } from './query.js';
import { SearchRepo } from './repo.js';
import type { StatusVisibility } from '../statuses/visibility.js';

export const SEARCH_TYPES = ['accounts', 'statuses', 'hashtags'] as const;
export const EXACT_ONLY_BELOW = 5;

export interface SearchInput {
  q: string;
  type?: string;
  limit: number;
  offset?: number;
  minId?: string;
  maxId?: string;
  accountId?: string;
  resolve: boolean;
  excludeUnreviewed: boolean;
}

export interface SearchResult {
  accountIds: string[];
  statusIds: string[];
  tags: TagRow[];
}

export interface RemoteResolver {
  resolve(query: string): Promise<{ accountIds: string[]; statusIds: string[] }>;
}

export class SearchService {
  readonly repo: SearchRepo;
  private readonly tags: TagsRepo;
  /** `remote`: fetches an account address or a status URL from its server (federation); null without federation. */
  constructor(
    private readonly ctx: SocialContext,
    private readonly visibility: StatusVisibility,
    private readonly remote: RemoteResolver | null,
  ) {
    this.repo = new SearchRepo(ctx);
    this.tags = new TagsRepo(ctx);
  }

  async search(viewerId: string | null, input: SearchInput): Promise<SearchResult> {
    if (input.type !== undefined && !(SEARCH_TYPES as readonly string[]).includes(input.type))
      throw badRequest(`Invalid value for 'type'`);
    if (!viewerId && input.resolve)
      throw unauthorized('Search queries that resolve remote resources are not supported without authentication');
    if (!viewerId && input.offset !== undefined)
      throw unauthorized('Search queries with offset are not supported without authentication');
    const paged = input.type !== undefined;
    const offset = paged ? (input.offset ?? 0) : 0;
    const wants = (type: string) => input.type === undefined || input.type === type;
    const { text, from } = parseQuery(input.q.trim());
    const exactOnly = !viewerId && input.q.trim().length < EXACT_ONLY_BELOW;
    const result: SearchResult = { accountIds: [], statusIds: [], tags: [] };

    let authorId: string | null = input.accountId ?? null;
    if (from !== null) authorId = await this.fromAccount(from, viewerId);

    if (wants('statuses') && viewerId) {
      const terms = searchTerms(text);
      if (terms.length > 0) {
        result.statusIds = (
          await this.repo.statuses({
            terms,
            viewerId,
            authorId,
            limit: input.limit,
            offset,
            maxId: paged ? input.maxId : undefined,
            minId: paged ? input.minId : undefined,
          })
        ).map((row) => row.id);
      }
    }
    if (from !== null) return result;
    if (wants('accounts')) result.accountIds = await this.accounts(text, exactOnly, input.limit, offset);
    if (input.resolve && viewerId && this.remote && offset === 0) {
      await this.mergeResolved(this.remote, input.q.trim(), result, wants);
      // A URL or URI names any status, known or fetched: it is found only by those who may see it.
      result.statusIds = await this.visibility.filter(result.statusIds, viewerId);
    }
    if (wants('hashtags')) {
      const name = text.replace(/^#/, '');
      if (name && /^[\p{L}\p{N}_]+$/u.test(name)) {
        result.tags = await this.tags.search(name, {
          exact: exactOnly,
          reviewedOnly: input.excludeUnreviewed,
          limit: input.limit,
          offset,
        });
      }
    }
    return result;
  }

  /** What the query names on another server comes first, then the local matches (without repeats). */
  private async mergeResolved(
    remote: RemoteResolver,
    query: string,
    result: SearchResult,
    wants: (type: string) => boolean,
  ): Promise<void> {
    const found = await remote.resolve(query);
    const first = (resolved: string[], local: string[]) => [...new Set([...resolved, ...local])];
    if (wants('accounts')) result.accountIds = first(found.accountIds, result.accountIds);
    if (wants('statuses')) result.statusIds = first(found.statusIds, result.statusIds);
  }

  private async fromAccount(value: string, viewerId: string | null): Promise<string> {
    const parsed = parseFrom(value);
    if (!parsed) throw unprocessable(`Validation failed: from: does not support "${value}"`);
    if ('me' in parsed) {
      if (!viewerId) throw unprocessable('Validation failed: from:me needs an authenticated user');
      return viewerId;
    }
    const [found] = await this.repo.exactAccounts(parsed.username, parsed.domain, this.ctx.localDomain);
    if (!found) throw notFound();
    return found.id;
  }

  private async accounts(text: string, exactOnly: boolean, limit: number, offset: number): Promise<string[]> {
    const address = /^@?([a-z0-9_]+(?:[a-z0-9_.-]*[a-z0-9_])?)(?:@([a-z0-9.-]+[a-z0-9](?::\d{1,5})?))?$/i.exec(text);
    if (exactOnly || (address && address[2])) {
      if (!address || offset > 0) return [];
      return (await this.repo.exactAccounts(address[1], address[2] ?? null, this.ctx.localDomain))
        .slice(0, limit)
        .map((row) => row.id);
    }
    const terms = searchTerms(text.replace(/^@/, '').replace(/[@.]/g, ' '));
    if (terms.length === 0) return [];
    return (await this.repo.accounts(terms, text.replace(/^@/, ''), limit, offset)).map((row) => row.id);
  }
}
