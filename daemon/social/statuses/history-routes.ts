/**
 * GET /api/v1/statuses/:id/history: a status's versions, oldest first (Mastodon's StatusEdit
 * shape). A status never edited answers with one version: itself as it is.
 */
import { pathId } from '../http/params.js';
import { optionalViewerId, type Routes } from '../http/routes.js';
import { read } from '../oauth/scopes.js';
import type { MediaById } from '../media/serialize.js';
import type { StatusRenderer, StatusJson } from './serialize.js';
import type { StatusesService } from './service.js';

export function statusHistoryRoutes(
  routes: Routes,
  service: StatusesService,
  renderer: StatusRenderer,
  mediaById: MediaById,
): void {
  routes.get('/api/v1/statuses/:id/history', { ifToken: read('statuses') }, async (ctx) => {
    const viewer = optionalViewerId(ctx);
    const row = await service.visible(pathId(ctx), viewer);
    const versions = await service.edits.history(row.id);
    if (versions.length === 0) {
      const current = (await renderer.render([row.id], viewer)).get(row.id);
      ctx.body = current ? [asVersion(current)] : [];
      return;
    }
    const accounts = await renderer.accountsById([...new Set(versions.map((version) => version.account_id))]);
    ctx.body = await Promise.all(
      versions.map(async (version) => ({
        content: version.content,
        spoiler_text: version.spoiler_text,
        sensitive: Boolean(version.sensitive),
        created_at: version.created_at,
        account: accounts.get(version.account_id) ?? null,
        media_attachments: await mediaById(version.media_ids),
        emojis: [],
        // Mastodon's StatusEdit carries the poll's options only, and only for a status with one.
        poll: version.poll_options ? { options: version.poll_options.map((title) => ({ title })) } : undefined,
      })),
    );
  });
}

function asVersion(status: StatusJson): Record<string, unknown> {
  return {
    content: status.content,
    spoiler_text: status.spoiler_text,
    sensitive: status.sensitive,
    created_at: status.edited_at ?? status.created_at,
    account: status.account,
    media_attachments: status.media_attachments ?? [],
    emojis: status.emojis ?? [],
    poll: pollOptions(status.poll),
  };
}

function pollOptions(poll: unknown): { options: Array<{ title: string }> } | undefined {
  if (!poll || typeof poll !== 'object') return undefined;
  return { options: (poll as { options: Array<{ title: string }> }).options.map(({ title }) => ({ title })) };
}
