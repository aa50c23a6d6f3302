/**
 * The first run's owner account, /api/nestbox/v1/onboarding: answers only while the box has no
 * owner (404 afterwards), and creates one only with proof of holding the box: the request arrives
 * on the setup AP (joining it took the key), or carries the setup key from the box's label. Wrong
 * keys are counted for the whole box and throttled. The answer signs the owner in to the dashboard.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { parseBody } from '../http/body.js';
import { forbidden, notFound } from '../lib/errors.js';
import type { Logger } from '../log/logger.js';
import { serializeAccount } from '../social/accounts/serialize.js';
import { safeEqual } from '../social/oauth/secrets.js';
import type { OnboardingService, OwnerInput } from '../social/onboarding/service.js';
import { SetupKeyThrottle } from '../social/onboarding/setup-key-throttle.js';
import { localAddress } from './captive-portal.js';
import { OWNER_API_PREFIX } from './owner-api.js';

export interface OnboardingRoutesOptions {
  onboarding: OnboardingService;
  /** The setup AP's key (null when the box has none to offer). */
  setupKey: () => string | null;
  /** The setup AP's own address; requests arriving on it come from the setup network. */
  apAddress: string | null;
  baseUrl: string;
  log: Logger;
}

export function onboardingRouter(options: OnboardingRoutesOptions): Router {
  const router = new Router({ prefix: `${OWNER_API_PREFIX}/onboarding` });
  const throttle = new SetupKeyThrottle(options.log);
  const onSetupNetwork = (ctx: Context) => options.apAddress !== null && localAddress(ctx) === options.apAddress;
  const stillOpen = async (ctx: Context, next: () => Promise<unknown>) => {
    ctx.set('Cache-Control', 'no-store');
    if (!(await options.onboarding.ownerNeeded())) throw notFound();
    await next();
  };

  router.get('/', stillOpen, (ctx) => {
    ctx.body = { owner_needed: true, setup_key_needed: !onSetupNetwork(ctx) };
  });

  router.post('/owner', stillOpen, parseBody(), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (!onSetupNetwork(ctx)) await proveKey(body.setup_key);
    const signedIn = await options.onboarding.createOwner(ownerInput(body));
    options.log.info('owner account created at onboarding', {
      account_id: signedIn.account.id,
      username: signedIn.account.username,
      from_setup_network: onSetupNetwork(ctx),
    });
    const { account, ...token } = signedIn;
    ctx.body = { ...token, account: serializeAccount(account, options.baseUrl) };
  });

  async function proveKey(given: unknown): Promise<void> {
    await throttle.check();
    const expected = options.setupKey();
    const typed = typeof given === 'string' ? given.trim() : '';
    if (expected !== null && typed !== '' && safeEqual(typed, expected)) return;
    await throttle.wrongKey();
    throw forbidden(
      typed === ''
        ? "Type the setup key from the box's label, or open this page from the box's setup network"
        : "That is not this box's setup key: it is on the box's label, under the setup network's name",
    );
  }

  return router;
}

function ownerInput(body: Record<string, unknown>): OwnerInput {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    username: text(body.username)?.trim(),
    email: text(body.email)?.trim(),
    password: text(body.password),
    display_name: text(body.display_name),
  };
}
