/**
 * Status JSON (Mastodon 4.5 REST::StatusSerializer), rendered in batches: one query per kind of
 * related data (authors, viewer flags, mentions, applications) for any number of statuses.
 */
import type { SocialContext } from '../context.js';
import { AccountsRepo } from '../accounts/repo.js';
import { acctOf, serializeAccount, type AccountJson } from '../accounts/serialize.js';
import { StatusesRepo, type StatusRow, type ViewerFlags } from './repo.js';

export type StatusJson = Record<string, unknown> & { id: string };

/** Fills fields other resources own (media_attachments, tags, filtered) on every rendered status, reblogged ones included. */
export type StatusDecorator = (rendered: ReadonlyArray<{ row: StatusRow; json: StatusJson }>, viewerId: string | null) => Promise<void>;

export class StatusRenderer {
  private readonly repo: StatusesRepo;
  private readonly accounts: AccountsRepo;
  /** Added by media, tags and filters when the services are built. */
  readonly decorators: StatusDecorator[] = [];

  constructor(private readonly ctx: SocialContext) {
    this.repo = new StatusesRepo(ctx);
    this.accounts = new AccountsRepo(ctx);
  }

  async accountsById(ids: readonly string[]): Promise<Map<string, AccountJson>> {
    const unique = [...new Set(ids)];
    const rows = await this.accounts.byIds(unique);
    return new Map(rows.map((row) => [row.id, serializeAccount(row, this.ctx.config.baseUrl)]));
  }

  /** Renders statuses by id (missing or deleted ones are left out unless `includeDeleted`). */
  async render(ids: readonly string[], viewerId: string | null, options: { includeDeleted?: boolean; withSource?: boolean } = {}): Promise<Map<string, StatusJson>> {
    const rows = await this.repo.byIds([...new Set(ids)]);
    const reblogIds = rows.map((row) => row.reblog_of_id).filter((id): id is string => id !== null);
    const originals = await this.repo.byIds(reblogIds.filter((id) => !rows.some((row) => row.id === id)));
    const all = [...rows, ...originals];
    const byId = new Map(all.map((row) => [row.id, row]));
    const [mentions, apps] = await Promise.all([
      this.repo.mentions(all.map((row) => row.id)),
      this.repo.apps([...new Set(all.map((row) => row.application_id).filter((id): id is string => id !== null))]),
    ]);
    const accounts = await this.accountsById([...all.map((row) => row.account_id), ...mentions.map((m) => m.account_id)]);
    const flags = viewerId
      ? await this.repo.viewerFlags(viewerId, all.map((row) => row.id), [...new Set(all.map((row) => row.conversation_id).filter((id): id is string => id !== null))])
      : null;
    const appById = new Map(apps.map((app) => [app.id, app]));
    const mentionsOf = new Map<string, string[]>();
    for (const mention of mentions) mentionsOf.set(mention.status_id, [...(mentionsOf.get(mention.status_id) ?? []), mention.account_id]);

    const built: Array<{ row: StatusRow; json: StatusJson }> = [];
    const one = (row: StatusRow): StatusJson | null => {
      const account = accounts.get(row.account_id);
      if (!account) return null;
      let reblog: StatusJson | null = null;
      if (row.reblog_of_id) {
        const original = byId.get(row.reblog_of_id);
        reblog = original && !original.deleted_at ? one(original) : null;
        if (!reblog) return null;
      }
      const app = row.application_id ? appById.get(row.application_id) : undefined;
      const json: StatusJson = {
        id: row.id,
        created_at: row.created_at,
        in_reply_to_id: row.in_reply_to_id,
        in_reply_to_account_id: row.in_reply_to_account_id,
        sensitive: Boolean(row.sensitive),
        spoiler_text: row.spoiler_text,
        visibility: row.visibility,
        language: row.language,
        uri: row.uri,
        url: row.url,
        replies_count: row.replies_count,
        reblogs_count: row.reblogs_count,
        favourites_count: row.favourites_count,
        quotes_count: 0,
        edited_at: row.edited_at,
        ...(flags ? viewerFields(row, viewerId!, flags) : {}),
        content: reblog ? '' : row.content,
        reblog,
        application: app ? { name: app.name, website: app.website || null } : undefined,
        account,
        media_attachments: [],
        mentions: (mentionsOf.get(row.id) ?? []).map((id) => accounts.get(id)).filter((a): a is AccountJson => Boolean(a))
          .map((a) => ({ id: a.id, username: a.username, url: a.url, acct: a.acct })),
        tags: [],
        emojis: [],
        quote: null,
        card: null,
        poll: null,
        quote_approval: { automatic: ['public'], manual: [], current_user: 'automatic' },
      };
      if (json.application === undefined) delete json.application;
      if (options.withSource) json.text = row.text;
      built.push({ row, json });
      return json;
    };

    const out = new Map<string, StatusJson>();
    for (const row of rows) {
      if (row.deleted_at && !options.includeDeleted) continue;
      const json = one(row);
      if (json) out.set(row.id, json);
    }
    for (const decorate of this.decorators) await decorate(built, viewerId);
    return out;
  }

  async renderOne(id: string, viewerId: string | null, options?: { includeDeleted?: boolean; withSource?: boolean }): Promise<StatusJson | undefined> {
    return (await this.render([id], viewerId, options)).get(id);
  }
}

function viewerFields(row: StatusRow, viewerId: string, flags: ViewerFlags): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    favourited: flags.favourited.has(row.id),
    reblogged: flags.reblogged.has(row.id),
    muted: row.conversation_id !== null && flags.mutedConversations.has(row.conversation_id),
    bookmarked: flags.bookmarked.has(row.id),
  };
  // Only the author's own pinnable statuses carry `pinned`.
  if (row.account_id === viewerId && !row.reblog_of_id) fields.pinned = flags.pinned.has(row.id);
  fields.filtered = [];
  return fields;
}

export { acctOf };
