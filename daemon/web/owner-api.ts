/**
 * The owner's appliance API, /api/nestbox/v1/…: device state (also as a live event stream),
 * saved networks (add, remove, reorder; passwords are never returned), setup mode, scan, transmit
 * power, power save, coprocessor restart and firmware upload. Reading needs admin:read, changing
 * needs admin:write, and both only for the box owner's token. An instance without a box answers
 * its device routes 409 (the route exists; the instance has no device to act on).
 */
import Router, { type RouterContext } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { parseNetworkInput } from '../connectivity/network-input.js';
import type { NetworksRepo } from '../connectivity/networks-repo.js';
import { serializeNetwork } from '../connectivity/serialize.js';
import type { ConnectivityParts } from '../connectivity/subsystem.js';
import type { DeviceSide } from '../connectivity/device-side.js';
import type { DeviceState } from '../device/state.js';
import { authenticate, requireScope } from '../http/auth.js';
import type { TokenResolver } from '../lib/grants.js';
import { parseBody } from '../http/body.js';
import { conflict, notFound, unprocessable } from '../lib/errors.js';
import { translated } from './errors.js';
import { openStateStream } from './state-stream.js';
import { readFirmwareUpload } from './firmware-upload.js';

export interface OwnerApiOptions {
  device: DeviceState;
  networks: NetworksRepo;
  /** Without a box the device routes answer 409: the path exists, the instance has nothing behind it. */
  connectivity: DeviceSide;
  resolveToken: TokenResolver;
}

export const OWNER_API_PREFIX = '/api/nestbox/v1';

type Method = 'get' | 'post' | 'put' | 'delete';
type DeviceHandler = (ctx: Context, box: ConnectivityParts) => unknown;

export function ownerApiRouter(options: OwnerApiOptions): Router {
  const router = new Router({ prefix: OWNER_API_PREFIX });
  const read = requireScope('admin:read', { owner: true });
  const write = requireScope('admin:write', { owner: true });
  router.use(authenticate(options.resolveToken));
  router.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  router.get('/state', read, (ctx) => {
    ctx.body = options.device.get();
  });
  router.get('/stream', read, (ctx) => openStateStream(ctx, options.device));

  const side = options.connectivity;
  /** A route of the device side: its body is read only when there is a box to hand it to. */
  const device = (method: Method, path: string, scope: Middleware, handler: DeviceHandler, body = false) => {
    if (side.kind === 'none') {
      router[method](path, scope, () => {
        throw conflict(`This instance runs without a box: ${side.reason}`);
      });
    } else if (body) router[method](path, scope, parseBody(), (ctx) => handler(ctx, side));
    else router[method](path, scope, (ctx) => handler(ctx, side));
  };
  mountDeviceRoutes(device, read, write, options);
  return router;
}

type DeviceRoute = (method: Method, path: string, scope: Middleware, handler: DeviceHandler, body?: boolean) => void;

function mountDeviceRoutes(device: DeviceRoute, read: Middleware, write: Middleware, options: OwnerApiOptions): void {
  const repo = options.networks;
  device('get', '/networks', read, async (ctx) => {
    ctx.body = await listNetworks(repo);
  });

  device(
    'post',
    '/networks',
    write,
    async (ctx, box) => {
      const saved = await translated(async () => repo.save(parseNetworkInput(ctx.request.body), false));
      await box.runner.networksChanged();
      ctx.status = 201;
      ctx.body = serializeNetwork(saved, (await repo.list()).findIndex((n) => n.id === saved.id) + 1);
    },
    true,
  );

  device('delete', '/networks/:id', write, async (ctx, box) => {
    const id = parseId((ctx as RouterContext).params.id);
    if (id === null || !(await repo.remove(id))) throw notFound('No saved network has this id');
    await box.runner.networksChanged();
    ctx.body = {};
  });

  device(
    'put',
    '/networks/order',
    write,
    async (ctx, box) => {
      const ids = (ctx.request.body as { ids?: unknown })?.ids;
      const parsed = Array.isArray(ids) ? ids.map((id) => parseId(id)) : null;
      if (!parsed || parsed.some((id) => id === null))
        throw unprocessable('ids must be the list of every saved network id, first tried first');
      if (!(await repo.reorder(parsed as number[])))
        throw unprocessable('ids must name every saved network exactly once');
      await box.runner.networksChanged();
      ctx.body = await listNetworks(repo);
    },
    true,
  );

  device('post', '/setup_mode', write, async (ctx, box) => {
    await box.commands.enterSetupMode();
    ctx.status = 202;
    ctx.body = { connectivity: options.device.get().connectivity };
  });

  device('get', '/setup_ap', read, (ctx, box) => {
    const { portal } = box;
    ctx.body = { ssid: portal.apName, passphrase: portal.passphrase, active: options.device.get().softap.active };
  });

  device('post', '/scan', write, async (ctx, box) => {
    ctx.body = await translated(() => box.commands.scan());
  });

  device(
    'put',
    '/tx_power',
    write,
    async (ctx, box) => {
      const dbm = Number((ctx.request.body as { dbm?: unknown })?.dbm);
      ctx.body = { dbm: await translated(() => box.commands.setTxPower(dbm)) };
    },
    true,
  );

  device(
    'put',
    '/power_save',
    write,
    async (ctx, box) => {
      const mode = (ctx.request.body as { mode?: unknown })?.mode;
      await translated(() => box.commands.setPowerSave(mode as never));
      ctx.body = { mode: options.device.get().coprocessor.power_save };
    },
    true,
  );

  device('post', '/restart_coprocessor', write, async (ctx, box) => {
    await translated(() => box.commands.restartCoprocessor());
    ctx.status = 202;
    ctx.body = {};
  });

  device('post', '/firmware', write, async (ctx, box) => {
    const { firmware, firmwareFiles } = box;
    const force = parseForce(ctx.query.force);
    const image = await readFirmwareUpload(ctx);
    await translated(() => firmware.start(image, { force }));
    // Kept as the box's newest firmware file: Home Assistant's update entity shows its version.
    await firmwareFiles.save(image);
    ctx.status = 202;
    ctx.body = { bytes: image.length, ota: options.device.get().coprocessor.ota };
  });
}

async function listNetworks(repo: NetworksRepo) {
  return (await repo.list()).map((network, index) => serializeNetwork(network, index + 1));
}

/** `?force=true` (or 1): write an image of another release than the driver's, knowing it must be rebuilt. */
function parseForce(value: unknown): boolean {
  if (value === undefined) return false;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw unprocessable('force is true or false');
}

function parseId(value: unknown): number | null {
  const text = String(value);
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}
