/**
 * Instance information: /api/v1/instance and /api/v2/instance (answered even to a bad or missing
 * token: apps read them before logging in), the about pages, languages, rules, peers and their
 * search, custom emojis, trends (off), and GET /api/v1/streaming, which sends clients to the streaming server.
 */
import type { Context } from 'koa';
import { notFound } from '../../lib/errors.js';
import type { Routes } from '../http/routes.js';
import { stringParam, params } from '../http/params.js';
import type { StatusRenderer } from '../statuses/serialize.js';
import { LANGUAGES } from './languages.js';
import type { InstanceService } from './service.js';
import {
  extendedDescription,
  instanceV1,
  instanceV2,
  privacyPolicy,
  streamingWsUrl,
  type InstanceFacts,
} from './serialize.js';

export interface InstanceDeps {
  instance: InstanceService;
  renderer: StatusRenderer;
  config: {
    baseUrl: string;
    streamingUrl: string;
    registrations: 'open' | 'approval' | 'closed';
    publicPreview: boolean;
  };
  localDomain: string;
  vapidKey: () => string;
}

export function instanceRoutes(routes: Routes, deps: InstanceDeps): void {
  const { config } = deps;
  const facts = async (): Promise<InstanceFacts> => {
    const { stats, rules, contact, identity } = await deps.instance.overview();
    const account = contact ? ((await deps.renderer.accountsById([contact.id])).get(contact.id) ?? null) : null;
    return {
      domain: deps.localDomain,
      baseUrl: config.baseUrl,
      streamingWs: streamingWsUrl(config.streamingUrl),
      registrations: config.registrations,
      stats,
      rules,
      contact: { account, email: contact?.email ?? '' },
      vapidKey: deps.vapidKey(),
      publicPreview: config.publicPreview,
      identity,
    };
  };
  // No authentication at all: the instance record is served whatever token comes with it.
  const open = (path: string, handler: (ctx: Context) => Promise<void> | void) => {
    routes.router.get(path, async (ctx) => {
      await handler(ctx);
      ctx.set('Cache-Control', 'public, max-age=60');
    });
  };

  open('/api/v1/instance', async (ctx) => {
    ctx.body = instanceV1(await facts());
  });
  open('/api/v2/instance', async (ctx) => {
    ctx.body = instanceV2(await facts());
  });
  open('/api/v1/instance/extended_description', (ctx) => {
    ctx.body = extendedDescription();
  });
  open('/api/v1/instance/privacy_policy', (ctx) => {
    ctx.body = privacyPolicy();
  });
  // No translation service on the box: no language pairs (Mastodon's answer without one).
  open('/api/v1/instance/translation_languages', (ctx) => {
    ctx.body = {};
  });
  open('/api/v1/instance/languages', (ctx) => {
    ctx.body = LANGUAGES.map(([code, name]) => ({ code, name }));
  });
  open('/api/v1/instance/rules', async (ctx) => {
    ctx.body = (await deps.instance.rules()).map((r) => ({ id: String(r.id), text: r.text, hint: r.hint }));
  });
  open('/api/v1/instance/peers', async (ctx) => {
    ctx.body = await deps.instance.peers();
  });
  open('/api/v1/peers/search', async (ctx) => {
    ctx.body = await deps.instance.searchPeers(stringParam(params(ctx), 'q') ?? '');
  });
  open('/api/v1/custom_emojis', async (ctx) => {
    ctx.body = (await deps.instance.emojis()).map((row) => ({
      shortcode: row.shortcode,
      url: row.image_url,
      static_url: row.static_url,
      visible_in_picker: Boolean(row.visible_in_picker),
      category: row.category,
    }));
  });

  // Trends are off on the box, as a Mastodon admin can turn them off: a few home users make no
  // trend worth showing, so the lists are empty, as Mastodon's are then.
  for (const path of ['/api/v1/trends', '/api/v1/trends/tags', '/api/v1/trends/statuses', '/api/v1/trends/links'])
    open(path, (ctx) => {
      ctx.body = [];
    });

  // Clients that ask the API host for streaming are sent to the streaming server, same path and query.
  routes.router.get('/api/v1/streaming', (ctx) => {
    const target = new URL(config.streamingUrl);
    // Streaming served through this very host (a proxy in front): redirecting would loop.
    if (target.host === ctx.host) throw notFound();
    const query = ctx.querystring ? `?${ctx.querystring}` : '';
    ctx.status = 301;
    ctx.redirect(`${target.protocol}//${target.host}${target.pathname.replace(/\/+$/, '')}/api/v1/streaming${query}`);
  });
}
