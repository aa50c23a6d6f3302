/** The profile directory and follow suggestions: Mastodon's defaults and bounds over the repo. */
import type { DirectoryOrder, DirectoryRepo, Suggestion } from './repo.js';

/** Past this an OFFSET only makes SQLite walk rows nobody pages to. */
const MAX_OFFSET = 1_000_000;

export interface DirectoryQuery {
  order?: string;
  local?: boolean;
  offset?: number;
  limit: number;
}

export class DirectoryService {
  constructor(private readonly repo: DirectoryRepo) {}

  /** Listable account ids in the asked order: recently active unless `new`, every domain unless `local`. */
  directory(viewerId: string | null, query: DirectoryQuery): Promise<string[]> {
    const order: DirectoryOrder = query.order === 'new' ? 'new' : 'active';
    return this.repo.directory(viewerId, {
      order,
      local: query.local ?? false,
      offset: Math.min(query.offset ?? 0, MAX_OFFSET),
      limit: query.limit,
    });
  }

  suggestions(viewerId: string, limit: number): Promise<Suggestion[]> {
    return this.repo.suggestions(viewerId, limit);
  }

  dismiss(viewerId: string, targetId: string): Promise<void> {
    return this.repo.dismiss(viewerId, targetId);
  }
}
