/**
 * Profile links verified as Mastodon verifies them: a field whose value is one web address is
 * verified when the page there links back to the profile (its page or its ActivityPub id) with
 * rel="me", on an <a> or a <link>. Local accounts are checked after every change to them; a field
 * whose value did not change keeps its verification (profile-fields.ts).
 */
import { lazy } from '../../lib/on-first-use.js';
import type { Logger } from '../../log/logger.js';
import type { SocialEventBus } from '../events.js';
import type { AccountsService } from './service.js';
import { fieldUrl, parseStoredFields } from './profile-fields.js';

/** How a page is fetched: bounded in time and size, under the address policy of every outbound request. */
export type PageFetch = (
  url: string,
  maxBytes: number,
  timeoutMs: number,
) => Promise<{ bytes: Buffer; contentType: string | null }>;

export interface LinkVerifierOptions {
  accounts: AccountsService;
  events: SocialEventBus;
  fetchPage: PageFetch;
  log: Logger;
  now: () => number;
}

const PAGE_MAX_BYTES = 1024 * 1024;
const PAGE_TIMEOUT_MS = 10_000;
const htmlParser = lazy('the HTML parser (htmlparser2)', async () => (await import('htmlparser2')).Parser);

/** The addresses the page links to with rel="me" (an <a> or a <link>, rel holding the token `me`). */
export async function relMeLinks(html: string): Promise<string[]> {
  const Parser = await htmlParser();
  const links: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name !== 'a' && name !== 'link') return;
      const rel = (attributes.rel ?? '').toLowerCase().split(/\s+/);
      if (rel.includes('me') && attributes.href) links.push(attributes.href.trim());
    },
  });
  parser.write(html);
  parser.end();
  return links;
}

export class LinkVerifier {
  /** Accounts waiting for a check, in order; an account is never checked twice at once. */
  private readonly waiting = new Set<string>();
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly onChange = ({ accountId }: { accountId: string }) => this.enqueue(accountId);

  constructor(private readonly options: LinkVerifierOptions) {}

  start(): void {
    this.options.events.on(this, 'account.created', this.onChange);
    this.options.events.on(this, 'account.updated', this.onChange);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.options.events.removeListeners(this);
    this.waiting.clear();
    await this.running;
  }

  /** Resolves when every account asked for so far has been checked (tests, and a clean stop). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private enqueue(accountId: string): void {
    if (this.stopped) return;
    this.waiting.add(accountId);
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  private async drain(): Promise<void> {
    for (let next = this.first(); next !== null && !this.stopped; next = this.first()) {
      this.waiting.delete(next);
      await this.check(next).catch((error: Error) =>
        this.options.log.warn('profile link check failed', { account_id: next, error: error.message }),
      );
    }
  }

  private first(): string | null {
    const [id] = this.waiting;
    return id ?? null;
  }

  private async check(accountId: string): Promise<void> {
    const row = await this.options.accounts.byId(accountId);
    if (!row || row.domain !== null || row.suspended_at) return;
    const links = parseStoredFields(row.fields).filter((field) => !field.verified_at && fieldUrl(field.value));
    if (links.length === 0) return;
    const backLinks = new Set([row.url, row.uri].filter((url): url is string => Boolean(url)).map(lower));
    const verifiedAt = new Map<string, string | null>();
    for (const field of links) {
      const linksBack = await this.linksBack(fieldUrl(field.value)!, backLinks);
      verifiedAt.set(field.value, linksBack ? new Date(this.options.now()).toISOString() : null);
    }
    if (await this.options.accounts.recordLinkChecks(accountId, row.fields, verifiedAt))
      this.options.log.info('profile links checked', {
        account_id: accountId,
        verified: [...verifiedAt.values()].filter(Boolean).length,
        checked: verifiedAt.size,
      });
  }

  private async linksBack(url: URL, backLinks: Set<string>): Promise<boolean> {
    try {
      const page = await this.options.fetchPage(url.href, PAGE_MAX_BYTES, PAGE_TIMEOUT_MS);
      if (page.contentType && !/^\s*(text\/html|application\/xhtml\+xml)\b/i.test(page.contentType)) return false;
      return (await relMeLinks(page.bytes.toString('utf8'))).some((href) => backLinks.has(lower(href)));
    } catch (error) {
      this.options.log.debug('profile link not reached', { url: url.origin, error: (error as Error).message });
      return false;
    }
  }
}

function lower(url: string): string {
  return url.toLowerCase();
}
