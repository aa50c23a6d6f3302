/** One status as an article: author, content (content warnings collapsed), media, poll, counts; boosts shown as such. */
import { html, type SafeHtml } from './html.js';
import { displayName, withEmoji } from './emoji.js';
import type { PageMedia, PagePoll, PageStatus } from './shapes.js';

export function statusLink(status: PageStatus): string {
  return status.url ?? status.uri;
}

export function statusView(status: PageStatus, options: { focused?: boolean } = {}): SafeHtml {
  if (status.reblog) {
    return html`<div class="boost">
      <p class="boost-by">&#x21bb; <a href="${status.account.url}">${displayName(status.account)}</a> boosted</p>
      ${statusView(status.reblog)}
    </div>`;
  }
  const author = status.account;
  const body = html`${status.content ? html`<div class="content">${withEmoji(status.content, status.emojis)}</div>` : ''}
  ${mediaView(status.media_attachments, status.sensitive)} ${status.poll ? pollView(status.poll) : ''}`;
  return html`<article class="status${options.focused ? ' focused' : ''}" lang="${status.language ?? ''}">
    <header class="status-head">
      <img class="avatar" src="${author.avatar}" alt="" width="40" height="40" />
      <a class="author" href="${author.url}"
        ><strong>${displayName(author)}</strong> <span class="acct">@${author.acct}</span></a
      >
    </header>
    ${
      status.spoiler_text
        ? html`<details>
            <summary>${withEmoji(escapeText(status.spoiler_text), status.emojis)}</summary>
            ${body}
          </details>`
        : body
    }
    <footer class="status-foot">
      <a href="${statusLink(status)}"><time datetime="${status.created_at}">${formatDate(status.created_at)}</time></a>
      <span
        >${status.visibility === 'unlisted' ? 'Unlisted · ' : ''}${status.replies_count} replies &middot;
        ${status.reblogs_count} boosts &middot; ${status.favourites_count} favourites</span
      >
    </footer>
  </article>`;
}

function escapeText(text: string): string {
  return html`${text}`.text;
}

function mediaView(media: readonly PageMedia[], sensitive: boolean): SafeHtml | '' {
  if (media.length === 0) return '';
  const items = media.map((item) => {
    const alt = item.description ?? '';
    if (item.type === 'image' || item.type === 'gifv' || item.type === 'unknown') {
      return html`<a href="${item.url}"><img src="${item.preview_url ?? item.url}" alt="${alt}" loading="lazy" /></a>`;
    }
    if (item.type === 'video')
      return html`<video src="${item.url}" controls preload="none" aria-label="${alt || 'Video'}"></video>`;
    return html`<audio src="${item.url}" controls preload="none" aria-label="${alt || 'Audio'}"></audio>`;
  });
  const grid = html`<div class="media">${items}</div>`;
  return sensitive
    ? html`<details class="sensitive">
        <summary>Sensitive media</summary>
        ${grid}
      </details>`
    : grid;
}

function pollView(poll: PagePoll): SafeHtml {
  const total = poll.votes_count || 0;
  const rows = poll.options.map((option) => {
    const votes = option.votes_count ?? 0;
    const percent = total ? Math.round((votes / total) * 100) : 0;
    return html`<li>
      <span>${option.title}</span>
      <meter min="0" max="100" value="${percent}" aria-label="${option.title}">${percent}%</meter>
      <span>${percent}% (${votes})</span>
    </li>`;
  });
  return html`<div class="poll">
    <ul>
      ${rows}
    </ul>
    <p>${total} votes${poll.expired ? ' · closed' : ''}</p>
  </div>`;
}

export function formatDate(iso: string): string {
  return new Date(iso).toUTCString().replace(/:\d\d GMT$/, ' UTC');
}
