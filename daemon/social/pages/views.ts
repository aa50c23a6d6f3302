/** The pages themselves: landing, profile, one post with its thread, and short messages (not found, gone). */
import { accountCard } from './account-view.js';
import { html, type SafeHtml } from './html.js';
import { layout, plainText } from './layout.js';
import type { PageAccount, PageStatus } from './shapes.js';
import { statusLink, statusView } from './status-view.js';

export interface Site {
  title: string;
  description: string;
  baseUrl: string;
  localDomain: string;
}

const APPS = [
  { name: 'Mastodon (Android, iOS)', url: 'https://joinmastodon.org/apps' },
  { name: 'Tusky (Android)', url: 'https://tusky.app/' },
  { name: 'Ice Cubes (iOS, macOS)', url: 'https://github.com/Dimillian/IceCubesApp' },
  { name: 'Elk (web)', url: 'https://elk.zone/' },
];

function feedList(statuses: readonly PageStatus[], label: string): SafeHtml {
  return statuses.length
    ? html`<section class="feed" aria-label="${label}">${statuses.map((status) => statusView(status))}</section>`
    : html`<p class="empty">No public posts yet.</p>`;
}

export function landingPage(site: Site, owner: PageAccount | null, statuses: readonly PageStatus[]): string {
  const handle = owner ? `@${owner.username}@${site.localDomain}` : null;
  const main = html`<section class="intro" aria-labelledby="site-title">
      <h1 id="site-title">${site.title}</h1>
      <p>${site.description}</p>
    </section>
    ${owner ? accountCard(owner, site.localDomain) : ''}
    ${
      handle
        ? html`<section class="follow" aria-labelledby="follow-title">
            <h2 id="follow-title">Follow from another server</h2>
            <p>In your Mastodon app (or any fediverse app), search for <code>${handle}</code> and press Follow.</p>
          </section>`
        : ''
    }
    <section aria-labelledby="posts-title">
      <h2 id="posts-title">Newest public posts</h2>
      ${feedList(statuses, 'Newest public posts')}
    </section>
    <nav aria-label="More">
      <h2>Apps and settings</h2>
      <ul>
        <li><a href="/dashboard">Owner's dashboard</a></li>
        ${APPS.map((app) => html`<li><a href="${app.url}" rel="noopener">${app.name}</a></li>`)}
      </ul>
    </nav>`;
  return layout(
    { title: site.title, description: site.description, url: `${site.baseUrl}/`, image: owner?.avatar },
    site.title,
    main,
  );
}

export interface ProfileData {
  account: PageAccount;
  pinned: readonly PageStatus[];
  statuses: readonly PageStatus[];
  /** The `max_id` of the next (older) page, when there is one. */
  olderMaxId: string | null;
  /** Whether this is a later page (`?max_id=` given). */
  paged: boolean;
}

export function profilePage(site: Site, data: ProfileData): string {
  const { account } = data;
  const name = account.display_name || account.username;
  const title = `${name} (@${account.username}@${site.localDomain})`;
  const main = html`${accountCard(account, site.localDomain)}
    ${
      data.pinned.length
        ? html`<section aria-labelledby="pinned-title">
            <h2 id="pinned-title">Pinned</h2>
            ${feedList(data.pinned, 'Pinned posts')}
          </section>`
        : ''
    }
    <section aria-labelledby="posts-title">
      <h2 id="posts-title">Posts</h2>
      ${feedList(data.statuses, 'Posts')}
    </section>
    ${
      data.paged || data.olderMaxId
        ? html`<nav class="pager" aria-label="Pages">
            ${data.paged ? html`<a href="${account.url}">Newest posts</a>` : ''}
            ${data.olderMaxId ? html`<a rel="next" href="${account.url}?max_id=${data.olderMaxId}">Older posts</a>` : ''}
          </nav>`
        : ''
    }`;
  return layout(
    {
      title,
      description: plainText(account.note) || `Posts by ${name}`,
      url: account.url,
      image: account.avatar,
      activityJson: account.uri,
      rss: `${account.url}.rss`,
      noindex: !account.discoverable,
      ogType: 'profile',
    },
    site.title,
    main,
  );
}

export interface PostData {
  status: PageStatus;
  ancestors: readonly PageStatus[];
  descendants: readonly PageStatus[];
}

export function postPage(site: Site, data: PostData): string {
  const { status } = data;
  const author = status.account;
  const name = author.display_name || author.username;
  const image = status.media_attachments.find((item) => item.type === 'image');
  const main = html`${data.ancestors.length ? html`<section class="thread" aria-label="Earlier in the thread">${data.ancestors.map((s) => statusView(s))}</section>` : ''}
  ${statusView(status, { focused: true })}
  ${
    data.descendants.length
      ? html`<section class="thread" aria-labelledby="replies-title">
          <h2 id="replies-title">Replies</h2>
          ${data.descendants.map((s) => statusView(s))}
        </section>`
      : ''
  }`;
  return layout(
    {
      title: `${name}: "${status.spoiler_text || plainText(status.content, 60)}"`,
      description: status.spoiler_text ? `Content warning: ${status.spoiler_text}` : plainText(status.content),
      url: statusLink(status),
      image: image?.preview_url ?? image?.url ?? author.avatar,
      activityJson: status.uri,
      noindex: !author.discoverable,
      ogType: 'article',
    },
    site.title,
    main,
  );
}

export function messagePage(site: Site, title: string, text: string): string {
  return layout(
    { title, description: text, url: `${site.baseUrl}/`, noindex: true },
    site.title,
    html`<section class="message">
      <h1>${title}</h1>
      <p>${text}</p>
    </section>`,
  );
}
