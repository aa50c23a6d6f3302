/**
 * The public web pages: `/` (landing), `/@user` (profile), `/@user/:id` (one post and its thread),
 * `/@user.rss` and `/tags/:name.rss`, and their stylesheet. They read through the services as no one
 * signed in, so the visibility rule and the status renderer's sanitised HTML decide what shows.
 * A request that asks for ActivityPub JSON goes on to federation's routes at the same paths.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { installPath } from '../../install-paths.js';
import type { SocialContext } from '../context.js';
import type { SocialServices } from '../services.js';
import type { AccountRow } from '../accounts/repo.js';
import { serializeAccount } from '../accounts/serialize.js';
import { rssFeed } from './feed.js';
import { wantsActivityJson } from './negotiation.js';
import { answerPage, sendPage } from './respond.js';
import { requesterDomain } from './requester.js';
import { STYLESHEET_PATH } from './layout.js';
import type { PageAccount, PageStatus } from './shapes.js';
import { landingPage, messagePage, postPage, profilePage, type Site } from './views.js';
import { isValidId } from '../../store/ids.js';

const WEB_DIR = installPath('web', 'pages');
const PAGE_SIZE = 20;
const HTML = 'text/html; charset=utf-8';
const RSS = 'application/rss+xml; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

export function pagesRouter(ctx: SocialContext, services: SocialServices): Router {
  const router = new Router();
  const { accounts, statuses, renderer, timelines, instance } = services;
  const baseUrl = ctx.config.baseUrl;
  // The name and description the owner gave the instance, read per page (a change shows at once).
  const siteNow = async (): Promise<Site> => {
    const identity = await instance.identity.get();
    return { title: identity.title, description: identity.short_description, baseUrl, localDomain: ctx.localDomain };
  };
  const stylesheet = readFileSync(join(WEB_DIR, 'pages.css'), 'utf8');

  const render = async (ids: readonly string[]): Promise<PageStatus[]> => {
    const rendered = await renderer.render(ids, null);
    return ids.map((id) => rendered.get(id)).filter((s) => s !== undefined) as unknown as PageStatus[];
  };
  const pageAccount = (row: AccountRow) => serializeAccount(row, baseUrl) as unknown as PageAccount;
  // A page for a server that names itself is made for it alone: never from or into the cache.
  const answer = (c: Context, type: string, page: () => Promise<void>) =>
    answerPage(c, requesterDomain(c.get('User-Agent')) ? null : services.renderCache.responses, type, page);
  /** Whether the requesting server (if it named itself) is one `accountId` blocks. */
  const blocksRequester = (c: Context, accountId: string): Promise<boolean> =>
    services.relationships.domainBlocked(accountId, requesterDomain(c.get('User-Agent')));
  /** `items` without those by an author who blocks the requesting server. */
  const forRequester = async (c: Context, items: PageStatus[]): Promise<PageStatus[]> => {
    if (!requesterDomain(c.get('User-Agent'))) return items;
    const authors = [...new Set(items.map((s) => s.account.id))];
    const blocking = new Set<string>();
    for (const id of authors) if (await blocksRequester(c, id)) blocking.add(id);
    return items.filter((s) => !blocking.has(s.account.id));
  };
  const message = async (c: Context, status: number, title: string, text: string) =>
    sendPage(c, HTML, messagePage(await siteNow(), title, text), status);

  /** The local account a path names; answers 404 or 410 itself and returns null when there is none to show. */
  const account = async (c: Context, username: string): Promise<AccountRow | null> => {
    const row = await accounts.localByUsername(username);
    if (!row || (await blocksRequester(c, row.id)))
      await message(c, 404, 'Not found', 'There is no such account here.');
    else if (row.suspended_at) await message(c, 410, 'Account suspended', 'This account has been suspended.');
    else return row;
    return null;
  };
  const newest = (row: AccountRow, maxId?: string) =>
    statuses.ofAccount(
      row.id,
      null,
      { pinned: false, excludeReplies: true, excludeReblogs: false },
      { maxId, limit: PAGE_SIZE },
    );

  router.get(STYLESHEET_PATH, async (c) => {
    await answer(c, CSS, async () => sendPage(c, CSS, stylesheet));
    c.set('Cache-Control', 'public, max-age=3600');
  });

  router.get('/', (c) => answer(c, HTML, () => landing(c)));

  const landing = async (c: Context) => {
    const { contact } = await instance.overview();
    const ownerRow = contact ? await accounts.get(contact.id) : null;
    const owner = ownerRow && !ownerRow.suspended_at && !ownerRow.silenced_at ? ownerRow : null;
    const ids = ctx.config.publicPreview
      ? await timelines.public({ local: true, remote: false, onlyMedia: false }, null, { limit: PAGE_SIZE })
      : owner
        ? await newest(owner)
        : [];
    const shownOwner = owner && !(await blocksRequester(c, owner.id)) ? pageAccount(owner) : null;
    const shown = await forRequester(c, await render(ids.map(({ id }) => id)));
    sendPage(c, HTML, landingPage(await siteNow(), shownOwner, shown));
  };

  router.get('/@:username', async (c, next) => {
    const name = String(c.params.username);
    if (name.endsWith('.rss')) return answer(c, RSS, () => accountFeed(c, name.slice(0, -4)));
    c.vary('Accept');
    if (wantsActivityJson(c.get('Accept'))) {
      await next();
      return;
    }
    await answer(c, HTML, () => profile(c, name));
  });

  const profile = async (c: Context, name: string) => {
    const maxId = c.query.max_id;
    // An id past the 64-bit range is no status's on either engine (PostgreSQL's bigint refuses it).
    if (maxId !== undefined && !isValidId(maxId)) {
      return message(c, 400, 'Bad request', 'max_id must be a status id.');
    }
    const row = await account(c, name);
    if (!row) return;
    if (row.silenced_at) return message(c, 200, 'Limited account', 'This profile is only shown to its followers.');
    const [pinnedIds, pageIds] = await Promise.all([
      maxId
        ? []
        : statuses.ofAccount(row.id, null, { pinned: true, excludeReplies: false, excludeReblogs: true }, { limit: 5 }),
      newest(row, maxId),
    ]);
    const [pinned, page] = await Promise.all([
      render(pinnedIds.map(({ id }) => id)),
      render(pageIds.map(({ id }) => id)),
    ]);
    const olderMaxId = pageIds.length === PAGE_SIZE ? pageIds[pageIds.length - 1].id : null;
    sendPage(
      c,
      HTML,
      profilePage(await siteNow(), {
        account: pageAccount(row),
        pinned,
        statuses: page,
        olderMaxId,
        paged: Boolean(maxId),
      }),
    );
  };

  router.get('/@:username/:id', async (c, next) => {
    c.vary('Accept');
    if (wantsActivityJson(c.get('Accept'))) {
      await next();
      return;
    }
    await answer(c, HTML, () => post(c, String(c.params.username), String(c.params.id)));
  });

  const post = async (c: Context, username: string, id: string) => {
    const row = await account(c, username);
    if (!row) return;
    const status = /^\d{1,20}$/.test(id) && !row.silenced_at ? await statuses.byId(id) : undefined;
    const [shown] = status && status.account_id === row.id && !status.reblog_of_id ? await render([id]) : [];
    if (!shown) return message(c, 404, 'Not found', 'This post does not exist or is not public.');
    const thread = await statuses.context(id, null);
    const [ancestors, descendants] = await Promise.all([
      render(thread.ancestors).then((items) => forRequester(c, items)),
      render(thread.descendants).then((items) => forRequester(c, items)),
    ]);
    sendPage(c, HTML, postPage(await siteNow(), { status: shown, ancestors, descendants }));
  };

  router.get('/tags/:file', async (c, next) => {
    const file = String(c.params.file);
    if (!file.endsWith('.rss')) {
      await next();
      return;
    }
    await answer(c, RSS, () => tagFeed(c, file.slice(0, -4)));
  });

  const tagFeed = async (c: Context, name: string) => {
    const tags = await timelines.tagsNamed({ hashtag: name, any: [], all: [], none: [] });
    const ids = tags
      ? await timelines.tag({ local: true, remote: false, onlyMedia: false, ...tags }, null, { limit: PAGE_SIZE })
      : [];
    const link = `${baseUrl}/tags/${encodeURIComponent(name)}`;
    const items = (await forRequester(c, await render(ids.map(({ id }) => id)))).filter(
      (s) => s.visibility === 'public',
    );
    sendPage(
      c,
      RSS,
      rssFeed(
        {
          title: `#${name} on ${(await siteNow()).title}`,
          link,
          description: `Public posts tagged #${name} on ${ctx.localDomain}`,
          self: `${link}.rss`,
        },
        items,
      ),
    );
  };

  async function accountFeed(c: Context, username: string): Promise<void> {
    const row = await account(c, username);
    if (!row) return;
    const rows = row.silenced_at ? [] : await newest(row);
    const items = (await render(rows.map(({ id }) => id))).filter((s) => s.visibility === 'public');
    const json = pageAccount(row);
    const name = json.display_name || json.username;
    sendPage(
      c,
      RSS,
      rssFeed(
        {
          title: `${name} (@${json.username}@${ctx.localDomain})`,
          link: json.url,
          description: `Public posts from @${json.username}@${ctx.localDomain}`,
          self: `${json.url}.rss`,
          image: json.avatar,
        },
        items,
      ),
    );
  }

  return router;
}
