/**
 * Search resolve: an account address (`user@host[:port]`, a leading @ allowed) or a URL (an
 * actor or a status) fetched over ActivityPub and stored. The search endpoint calls this with
 * `resolve=true`; failures to reach a peer are answered with no result, as Mastodon does.
 */
import type { FetchContext } from '../context.js';
import { isLocalUri } from '../context.js';
import type { RemoteActors } from '../actors/remote.js';
import type { RemoteStatuses } from '../objects/remote-statuses.js';
import { hasType, isObject } from '../objects/ld.js';
import { ACTOR_TYPES } from '../actors/parse.js';

export interface Resolved {
  accountIds: string[];
  statusIds: string[];
}

const ACCT =
  /^@?([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)@([a-z0-9.-]+[a-z0-9](?::\d{1,5})?|\[[0-9a-f:]+\](?::\d{1,5})?)$/i;

export function parseAcct(query: string): { username: string; domain: string } | null {
  const match = ACCT.exec(query.trim());
  return match ? { username: match[1], domain: match[2].toLowerCase() } : null;
}

export class Resolver {
  constructor(
    private readonly fed: FetchContext,
    private readonly actors: RemoteActors,
    private readonly statuses: RemoteStatuses,
  ) {}

  async resolve(query: string): Promise<Resolved> {
    const none: Resolved = { accountIds: [], statusIds: [] };
    try {
      const acct = parseAcct(query);
      if (acct) {
        if (acct.domain === this.fed.localDomain.toLowerCase()) {
          const row =
            (await this.actors.repo.byAcct(acct.username, acct.domain)) ??
            (await this.fed.services.accounts.byUsername(acct.username, null));
          return row ? { accountIds: [row.id], statusIds: [] } : none;
        }
        return { accountIds: [(await this.actors.resolveAcct(acct.username, acct.domain)).id], statusIds: [] };
      }
      if (/^https?:\/\//i.test(query.trim())) return await this.resolveUrl(query.trim());
    } catch (error) {
      this.fed.log.info('search resolve found nothing', {
        query: query.slice(0, 200),
        error: (error as Error).message,
      });
    }
    return none;
  }

  private async resolveUrl(url: string): Promise<Resolved> {
    const knownStatus = await this.statuses.idAt(url);
    if (knownStatus) return { accountIds: [], statusIds: [knownStatus] };
    const knownAccount = await this.actors.repo.idAt(url);
    if (knownAccount) return { accountIds: [knownAccount], statusIds: [] };
    if (isLocalUri(this.fed, url)) return { accountIds: [], statusIds: [] };
    const { json } = await this.fed.client.getJson(url);
    if (isObject(json) && hasType(json, ...ACTOR_TYPES)) {
      return { accountIds: [(await this.actors.resolve(String(json.id))).id], statusIds: [] };
    }
    const id = isObject(json) && typeof json.id === 'string' ? json.id : url;
    return { accountIds: [], statusIds: [await this.statuses.resolve(id)] };
  }
}
