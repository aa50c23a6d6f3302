/**
 * The owner's appliance API, /api/nestbox/v1/…: device state (also as a live event stream),
 * saved networks (add, remove, reorder; passwords are never returned), setup mode, scan, transmit
 * power, power save, coprocessor restart and firmware upload. Reading needs admin:read, changing
 * needs admin:write, and both only for the box owner's token.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { parseNetworkInput } from '../connectivity/network-input.js';
import type { NetworksRepo } from '../connectivity/networks-repo.js';
import { serializeNetwork } from '../connectivity/serialize.js';
import type { ConnectivityParts } from '../connectivity/subsystem.js';
import type { DeviceState } from '../device/state.js';
import { authenticate, requireScope } from '../http/auth.js';
import type { TokenResolver } from '../lib/grants.js';
import { parseBody } from '../http/body.js';
import { notFound, unprocessable } from '../lib/errors.js';
import { translated } from './errors.js';
import { openStateStream } from './state-stream.js';
import { readFirmwareUpload } from './firmware-upload.js';

export interface OwnerApiOptions {
  device: DeviceState;
  networks: NetworksRepo;
  connectivity: ConnectivityParts;
  resolveToken: TokenResolver;
}

export const OWNER_API_PREFIX = '/api/nestbox/v1';

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

  router.get('/networks', read, async (ctx) => {
    ctx.body = await listNetworks(options.networks);
  });

  router.post('/networks', write, parseBody(), async (ctx) => {
    const repo = options.networks;
    const saved = await translated(async () => repo.save(parseNetworkInput(ctx.request.body), false));
    await options.connectivity.runner.networksChanged();
    ctx.status = 201;
    ctx.body = serializeNetwork(saved, (await repo.list()).findIndex((n) => n.id === saved.id) + 1);
  });

  router.delete('/networks/:id', write, async (ctx) => {
    const id = parseId(ctx.params.id);
    if (id === null || !(await options.networks.remove(id))) throw notFound('No saved network has this id');
    await options.connectivity.runner.networksChanged();
    ctx.body = {};
  });

  router.put('/networks/order', write, parseBody(), async (ctx) => {
    const ids = (ctx.request.body as { ids?: unknown })?.ids;
    const parsed = Array.isArray(ids) ? ids.map((id) => parseId(id)) : null;
    if (!parsed || parsed.some((id) => id === null))
      throw unprocessable('ids must be the list of every saved network id, first tried first');
    if (!(await options.networks.reorder(parsed as number[])))
      throw unprocessable('ids must name every saved network exactly once');
    await options.connectivity.runner.networksChanged();
    ctx.body = await listNetworks(options.networks);
  });

  router.post('/setup_mode', write, async (ctx) => {
    await options.connectivity.commands.enterSetupMode();
    ctx.status = 202;
    ctx.body = { connectivity: options.device.get().connectivity };
  });

  router.get('/setup_ap', read, (ctx) => {
    const { portal } = options.connectivity;
    ctx.body = { ssid: portal.apName, passphrase: portal.passphrase, active: options.device.get().softap.active };
  });

  router.post('/scan', write, async (ctx) => {
    const control = options.connectivity.commands;
    ctx.body = await translated(() => control.scan());
  });

  router.put('/tx_power', write, parseBody(), async (ctx) => {
    const dbm = Number((ctx.request.body as { dbm?: unknown })?.dbm);
    const control = options.connectivity.commands;
    ctx.body = { dbm: await translated(() => control.setTxPower(dbm)) };
  });

  router.put('/power_save', write, parseBody(), async (ctx) => {
    const mode = (ctx.request.body as { mode?: unknown })?.mode;
    const control = options.connectivity.commands;
    await translated(() => control.setPowerSave(mode as never));
    ctx.body = { mode: options.device.get().coprocessor.power_save };
  });

  router.post('/restart_coprocessor', write, async (ctx) => {
    const control = options.connectivity.commands;
    await translated(() => control.restartCoprocessor());
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('/firmware', write, async (ctx: Context) => {
    const { firmware, firmwareFiles } = options.connectivity;
    const force = parseForce(ctx.query.force);
    const image = await readFirmwareUpload(ctx);
    await translated(() => firmware.start(image, { force }));
    // Kept as the box's newest firmware file: Home Assistant's update entity shows its version.
    await firmwareFiles.save(image);
    ctx.status = 202;
    ctx.body = { bytes: image.length, ota: options.device.get().coprocessor.ota };
  });

  return router;
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
