/** An account's profile card: header, avatar, name with emoji, bio, fields, counts. */
import { html, type SafeHtml } from './html.js';
import { displayName, withEmoji } from './emoji.js';
import type { PageAccount } from './shapes.js';

export function accountCard(account: PageAccount, localDomain: string): SafeHtml {
  const fields = account.fields.map(
    (field) =>
      html`<div class="field${field.verified_at ? ' verified' : ''}">
        <dt>${withEmoji(field.name, account.emojis)}</dt>
        <dd>
          ${withEmoji(field.value, account.emojis)}${field.verified_at ? html` <span class="check" title="Link verified">&#x2714; verified</span>` : ''}
        </dd>
      </div>`,
  );
  return html`<section class="profile" aria-labelledby="profile-name">
    <img class="header" src="${account.header}" alt="" width="600" height="200" />
    <div class="profile-main">
      <img
        class="avatar big"
        src="${account.avatar}"
        alt="${account.display_name || account.username}'s avatar"
        width="96"
        height="96"
      />
      <h1 id="profile-name">${displayName(account)}</h1>
      <p class="acct">
        @${account.username}@${localDomain}${account.locked ? ' 🔒' : ''}${account.bot ? ' · bot' : ''}
      </p>
      <div class="note">${withEmoji(account.note, account.emojis)}</div>
      ${fields.length ? html`<dl class="fields">${fields}</dl>` : ''}
      <p class="counts">
        <a href="${account.url}"><strong>${account.statuses_count}</strong> posts</a> &middot;
        <strong>${account.following_count}</strong> following &middot;
        <strong>${account.followers_count}</strong> followers
      </p>
    </div>
  </section>`;
}
