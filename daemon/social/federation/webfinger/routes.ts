/**
 * Discovery: WebFinger (`acct:user@host[:port]` or the actor URL), host-meta, and NodeInfo 2.0
 * behind /.well-known/nodeinfo.
 */
import type Router from '@koa/router';
import { HttpError } from '../../../http/errors.js';
import { notFound } from '../../../lib/errors.js';
import { VERSION } from '../../../version.js';
import type { FederationContext } from '../context.js';
import type { LocalActors } from '../actors/local.js';

export function discoveryRoutes(router: Router, fed: FederationContext, local: LocalActors): void {
  const base = fed.baseUrl;

  router.get('/.well-known/webfinger', async (ctx) => {
    const resource = typeof ctx.query.resource === 'string' ? ctx.query.resource.trim() : '';
    if (!resource) throw new HttpError(400, 'resource parameter is required');
    const username = localUsername(resource, fed.localDomain, base);
    const account = username ? await local.byUsername(username) : undefined;
    if (!account) throw notFound();
    ctx.type = 'application/jrd+json';
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = {
      subject: `acct:${account.username}@${fed.localDomain}`,
      aliases: [account.url ?? account.uri, account.uri],
      links: [
        { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: account.url ?? account.uri },
        { rel: 'self', type: 'application/activity+json', href: account.uri },
      ],
    };
  });

  router.get('/.well-known/host-meta', (ctx) => {
    ctx.type = 'application/xrd+xml';
    ctx.body =
      `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n` +
      `  <Link rel="lrdd" template="${base}/.well-known/webfinger?resource={uri}"/>\n</XRD>\n`;
  });

  router.get('/.well-known/nodeinfo', (ctx) => {
    ctx.body = { links: [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${base}/nodeinfo/2.0` }] };
  });

  router.get('/nodeinfo/2.0', async (ctx) => {
    const usage = await fed.services.instance.nodeInfoUsage();
    ctx.type = 'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"';
    ctx.body = {
      version: '2.0',
      software: { name: 'nestbox', version: VERSION },
      protocols: ['activitypub'],
      services: { outbound: [], inbound: [] },
      usage: {
        users: { total: usage.users, activeMonth: usage.month, activeHalfyear: usage.halfyear },
        localPosts: usage.posts,
      },
      openRegistrations: fed.social.config.registrations === 'open',
      metadata: {},
    };
  });
}

/** The local username a WebFinger resource names, or null (another domain, malformed). */
export function localUsername(resource: string, localDomain: string, baseUrl: string): string | null {
  const acct = /^(?:acct:)?@?([^@\s]+)@([^@\s]+)$/i.exec(resource);
  if (acct) return acct[2].toLowerCase() === localDomain.toLowerCase() ? acct[1] : null;
  for (const prefix of [`${baseUrl}/users/`, `${baseUrl}/@`]) {
    if (resource.startsWith(prefix)) {
      const rest = resource.slice(prefix.length);
      return /^[A-Za-z0-9_.-]+$/.test(rest) ? rest : null;
    }
  }
  return null;
}
