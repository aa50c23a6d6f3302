/**
 * The filter rules: a title and at least one known context; action warn or hide (blur in 4.4+);
 * keywords added, edited and removed through keywords_attributes ({id, keyword, whole_word,
 * _destroy}); expiry by expires_in seconds. Every change tells the user's streams (filters_changed).
 */
import type { Knex } from 'knex';
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { isoAfterSeconds, nowIso } from '../time.js';
import { FiltersRepo, type FilterRow, type KeywordRow } from './repo.js';
import type { ActiveFiltersCache } from '../render/active-filters.js';

export const CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export const ACTIONS = ['warn', 'hide', 'blur'] as const;

export interface KeywordAttribute {
  id?: string;
  keyword?: string;
  whole_word?: boolean;
  _destroy?: boolean;
}
export interface FilterInput {
  title?: string;
  context?: string[];
  filter_action?: string;
  expires_in?: number | null;
  keywords_attributes?: KeywordAttribute[];
}

/** An account's unexpired filters with their keywords. */
export type ActiveFilters = ReadonlyArray<{ filter: FilterRow; keywords: KeywordRow[] }>;

export class FiltersService {
  readonly repo: FiltersRepo;
  /** `activeFilters`: the render cache's part for filters, which this service alone writes and forgets. */
  constructor(
    private readonly ctx: SocialContext,
    private readonly activeFilters: ActiveFiltersCache<ActiveFilters>,
  ) {
    this.repo = new FiltersRepo(ctx);
  }

  async list(accountId: string): Promise<Array<{ filter: FilterRow; keywords: KeywordRow[] }>> {
    return this.withKeywords(await this.repo.list(accountId));
  }

  /** The account's unexpired filters with their keywords; shared between callers, never to be changed. */
  async active(accountId: string): Promise<ActiveFilters> {
    const now = this.ctx.now();
    return this.activeFilters.get(accountId, now, async () => {
      const value = Object.freeze(await this.withKeywords(await this.repo.active(accountId, nowIso(now))));
      return { value, until: firstExpiry(value.map(({ filter }) => filter)) };
    });
  }

  private async withKeywords(filters: FilterRow[]) {
    const keywords = await this.repo.keywords(filters.map((f) => f.id));
    return filters.map((filter) => ({ filter, keywords: keywords.filter((k) => k.filter_id === filter.id) }));
  }

  async get(accountId: string, id: string): Promise<{ filter: FilterRow; keywords: KeywordRow[] }> {
    const filter = await this.repo.one(accountId, id);
    if (!filter) throw notFound();
    return (await this.withKeywords([filter]))[0];
  }

  async create(accountId: string, input: FilterInput): Promise<string> {
    const title = (input.title ?? '').trim();
    if (!title) throw unprocessable("Validation failed: Title can't be blank");
    const context = checkContext(input.context);
    const action = checkAction(input.filter_action ?? 'warn');
    const now = nowIso(this.ctx.now());
    const id = await this.ctx.db.transaction(async (trx) => {
      const filterId = await this.repo.insertFilter(trx, {
        account_id: accountId,
        title,
        context: JSON.stringify(context),
        action,
        expires_at: this.expiry(input.expires_in),
        created_at: now,
      });
      await this.applyKeywords(trx, filterId, input.keywords_attributes ?? [], now);
      return filterId;
    });
    this.changed(accountId);
    return id;
  }

  async update(accountId: string, id: string, input: FilterInput): Promise<void> {
    await this.get(accountId, id);
    const patch: Record<string, unknown> = {};
    if (input.title !== undefined) {
      if (!input.title.trim()) throw unprocessable("Validation failed: Title can't be blank");
      patch.title = input.title.trim();
    }
    if (input.context !== undefined) patch.context = JSON.stringify(checkContext(input.context));
    if (input.filter_action !== undefined) patch.action = checkAction(input.filter_action);
    if (input.expires_in !== undefined) patch.expires_at = this.expiry(input.expires_in);
    const now = nowIso(this.ctx.now());
    await this.ctx.db.transaction(async (trx) => {
      await this.repo.updateFilter(trx, id, patch);
      await this.applyKeywords(trx, id, input.keywords_attributes ?? [], now);
    });
    this.changed(accountId);
  }

  async remove(accountId: string, id: string): Promise<void> {
    if (!(await this.repo.deleteFilter(accountId, id))) throw notFound();
    this.changed(accountId);
  }

  async addKeyword(accountId: string, filterId: string, attr: KeywordAttribute): Promise<string> {
    await this.get(accountId, filterId);
    const id = await this.ctx.db.transaction((trx) =>
      this.repo.insertKeyword(
        trx,
        filterId,
        checkKeyword(attr.keyword),
        attr.whole_word ?? true,
        nowIso(this.ctx.now()),
      ),
    );
    this.changed(accountId);
    return id;
  }

  async keyword(accountId: string, id: string): Promise<KeywordRow> {
    const row = await this.repo.keyword(id);
    if (!row || row.account_id !== accountId) throw notFound();
    return row;
  }

  async updateKeyword(accountId: string, id: string, attr: KeywordAttribute): Promise<KeywordRow> {
    const row = await this.keyword(accountId, id);
    const patch: { keyword?: string; whole_word?: number } = {};
    if (attr.keyword !== undefined) patch.keyword = checkKeyword(attr.keyword);
    if (attr.whole_word !== undefined) patch.whole_word = attr.whole_word ? 1 : 0;
    await this.ctx.db.transaction((trx) => this.repo.updateKeyword(trx, row.filter_id, id, patch));
    this.changed(accountId);
    return this.keyword(accountId, id);
  }

  async removeKeyword(accountId: string, id: string): Promise<void> {
    const row = await this.keyword(accountId, id);
    await this.ctx.db.transaction((trx) => this.repo.deleteKeyword(trx, row.filter_id, id));
    this.changed(accountId);
  }

  /** keywords_attributes: an entry with an id edits (or with _destroy removes) that keyword; without, adds one. */
  private async applyKeywords(trx: Knex, filterId: string, attributes: KeywordAttribute[], now: string): Promise<void> {
    for (const attr of attributes) {
      if (attr.id !== undefined && attr.id !== '') {
        const ok = attr._destroy
          ? await this.repo.deleteKeyword(trx, filterId, String(attr.id))
          : await this.repo.updateKeyword(trx, filterId, String(attr.id), {
              ...(attr.keyword !== undefined ? { keyword: checkKeyword(attr.keyword) } : {}),
              ...(attr.whole_word !== undefined ? { whole_word: attr.whole_word ? 1 : 0 } : {}),
            });
        if (!ok) throw notFound();
      } else if (!attr._destroy) {
        await this.repo.insertKeyword(trx, filterId, checkKeyword(attr.keyword), attr.whole_word ?? true, now);
      }
    }
  }

  private expiry(expiresIn: number | null | undefined): string | null {
    if (expiresIn === undefined || expiresIn === null) return null;
    return isoAfterSeconds(this.ctx.now(), expiresIn, 'Expires in');
  }

  private changed(accountId: string): void {
    this.activeFilters.forget(accountId);
    this.ctx.events.emit('filters.changed', { accountId });
  }
}

/** When the first of `filters` expires (ms since the epoch); Infinity when none does. */
function firstExpiry(filters: readonly FilterRow[]): number {
  return Math.min(Infinity, ...filters.flatMap(({ expires_at }) => (expires_at ? [Date.parse(expires_at)] : [])));
}

function checkContext(context: string[] | undefined): string[] {
  const list = [...new Set(context ?? [])];
  if (list.length === 0) throw unprocessable("Validation failed: Context can't be blank");
  if (list.some((c) => !(CONTEXTS as readonly string[]).includes(c)))
    throw unprocessable('Validation failed: Context contains an unknown value');
  return list;
}

function checkAction(action: string): string {
  if (!(ACTIONS as readonly string[]).includes(action))
    throw unprocessable('Validation failed: Filter action is not included in the list');
  return action;
}

function checkKeyword(keyword: string | undefined): string {
  const value = (keyword ?? '').trim();
  if (!value) throw unprocessable("Validation failed: Keyword can't be blank");
  return value;
}
