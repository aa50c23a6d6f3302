/**
 * The login-and-consent page, the owner's sign-in to the box's own dashboard (no consent step:
 * see own-dashboard.ts), and the out-of-band code page, from the plain HTML templates in
 * web/oauth/ (read once at start-up). Every value put into a page is HTML-escaped.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { escapeHtml } from '../statuses/html.js';
import { installPath } from '../../install-paths.js';

const WEB_DIR = installPath('web', 'oauth');

export class OAuthPages {
  private readonly authorize = readFileSync(join(WEB_DIR, 'authorize.html'), 'utf8');
  private readonly signIn = readFileSync(join(WEB_DIR, 'sign-in.html'), 'utf8');
  private readonly code = readFileSync(join(WEB_DIR, 'code.html'), 'utf8');
  private readonly error = readFileSync(join(WEB_DIR, 'error.html'), 'utf8');
  readonly css = readFileSync(join(WEB_DIR, 'oauth.css'), 'utf8');

  authorizePage(input: {
    appName: string;
    website: string | null;
    scopes: string[];
    hidden: Record<string, string>;
    message?: string;
    login?: string;
  }): string {
    const scopes = input.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
    return fill(this.authorize, {
      app: escapeHtml(input.appName),
      website: input.website
        ? `<a href="${escapeHtml(input.website)}" rel="noopener">${escapeHtml(input.website)}</a>`
        : '',
      scopes,
      hidden: hiddenFields(input.hidden),
      login: escapeHtml(input.login ?? ''),
      message: errorLine(input.message),
    });
  }

  signInPage(input: { hidden: Record<string, string>; message?: string; login?: string }): string {
    return fill(this.signIn, {
      hidden: hiddenFields(input.hidden),
      login: escapeHtml(input.login ?? ''),
      message: errorLine(input.message),
    });
  }

  codePage(code: string): string {
    return fill(this.code, { code: escapeHtml(code) });
  }

  errorPage(message: string): string {
    return fill(this.error, { message: escapeHtml(message) });
  }
}

function hiddenFields(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
}

function errorLine(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '';
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => values[name] ?? '');
}
