/** /api/v1/push/subscription (alias /subscriptions): POST, GET, PUT, DELETE with the `push` scope; one per token. */
import type { Context } from 'koa';
import { notFound } from '../../lib/errors.js';
import { boolParam, params, stringParam, type Params } from '../http/params.js';
import { authOf, viewerId, type Routes } from '../http/routes.js';
import { serializeSubscription, type DataInput, type PushService } from './service.js';

const PATHS = ['/api/v1/push/subscription', '/api/v1/push/subscriptions'];

function object(value: unknown): Params {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : {};
}

function dataInput(p: Params): DataInput {
  const data = object(p.data);
  return {
    alerts: data.alerts === undefined ? undefined : object(data.alerts),
    policy: stringParam(data, 'policy') ?? stringParam(p, 'policy'),
  };
}

export function pushRoutes(routes: Routes, service: PushService, serverKey: () => string): void {
  const access = { scopes: ['push'] };
  const tokenOf = (ctx: Context) => authOf(ctx).tokenId;

  routes.post(PATHS, access, async (ctx) => {
    const p = params(ctx);
    const subscription = object(p.subscription);
    const keys = object(subscription.keys);
    const row = await service.subscribe(
      tokenOf(ctx),
      viewerId(ctx),
      {
        endpoint: stringParam(subscription, 'endpoint'),
        p256dh: stringParam(keys, 'p256dh'),
        auth: stringParam(keys, 'auth'),
        standard: boolParam(subscription, 'standard') ?? false,
      },
      dataInput(p),
    );
    ctx.body = serializeSubscription(row, serverKey());
  });
  routes.get(PATHS, access, async (ctx) => {
    viewerId(ctx);
    const row = await service.get(tokenOf(ctx));
    if (!row) throw notFound();
    ctx.body = serializeSubscription(row, serverKey());
  });
  routes.put(PATHS, access, async (ctx) => {
    viewerId(ctx);
    ctx.body = serializeSubscription(await service.update(tokenOf(ctx), dataInput(params(ctx))), serverKey());
  });
  routes.delete(PATHS, access, async (ctx) => {
    viewerId(ctx);
    await service.remove(tokenOf(ctx));
    ctx.body = {};
  });
}
