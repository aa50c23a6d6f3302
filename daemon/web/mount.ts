/**
 * Mounts the owner's side of the HTTP surface. The connectivity part, in its order: captive-portal
 * redirects first (they apply to every path while in setup mode), then the count of a person at the
 * portal (requests from the setup AP's side), then the setup portal, the owner API and the
 * dashboard page. Then the instance's part, which the social side brings: the first run's owner
 * account, the instance's identity and address, invites and reachability.
 */
import type { NetworksRepo } from '../connectivity/networks-repo.js';
import type { DeviceSide } from '../connectivity/device-side.js';
import type { ConnectivityParts } from '../connectivity/subsystem.js';
import type { DeviceState } from '../device/state.js';
import type { TokenResolver } from '../lib/grants.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../log/logger.js';
import type { OnboardingService } from '../social/onboarding/service.js';
import { captivePortal } from './captive-portal.js';
import { dashboardRouter } from './dashboard.js';
import { onboardingRouter } from './onboarding.js';
import { invitesRouter } from './invites.js';
import type { InvitesService } from '../social/invites/service.js';
import { instanceSettingsRouter, type InstanceSettingsOptions } from './instance-settings.js';
import { ownerApiRouter } from './owner-api.js';
import { portalActivity } from './portal-activity.js';
import { setupPortalRouter } from './setup-portal.js';
import { reachabilityRouter } from './reachability-api.js';
import type { ReachabilityFlow } from '../reachability/flow.js';

export interface ConnectivityWebOptions {
  device: DeviceState;
  networks: NetworksRepo;
  /** Without a box: no captive portal or setup portal, and the owner API's device routes answer 409. */
  connectivity: DeviceSide;
  resolveToken: TokenResolver;
  baseUrl: string;
  httpHost: string;
  httpPort: number;
  setupApAddress: string | null;
  /** The port phones reach the portal on at the setup address (80 with the network layer on). */
  setupPortalPort: number;
  /** The box has no owner yet: the setup portal's result leads to creating one. */
  ownerNeeded: () => Promise<boolean>;
}

export function mountConnectivityWeb(http: Pick<HttpServer, 'use'>, options: ConnectivityWebOptions): void {
  const { connectivity, resolveToken } = options;
  if (connectivity.kind === 'box') mountSetupSide(http, connectivity, options);
  http.use(ownerApiRouter({ device: options.device, networks: options.networks, connectivity, resolveToken }).routes());
  http.use(dashboardRouter().routes());
}

/** What only a box has: the captive portal's redirects, the count of people at it, the setup portal. */
function mountSetupSide(
  http: Pick<HttpServer, 'use'>,
  connectivity: ConnectivityParts,
  options: ConnectivityWebOptions,
): void {
  http.use(
    captivePortal({
      inSetupMode: () => connectivity.portal.inSetupMode(),
      apAddress: options.setupApAddress,
      httpPort: options.setupPortalPort,
      ownHosts: [new URL(options.baseUrl).hostname, options.httpHost, 'localhost', '127.0.0.1'],
    }),
  );
  http.use(
    portalActivity({
      inSetupMode: () => connectivity.portal.inSetupMode(),
      apAddress: options.setupApAddress,
      portalUsed: () => connectivity.portal.portalUsed(),
    }),
  );
  http.use(
    setupPortalRouter({
      connectivity,
      resolveToken: options.resolveToken,
      dashboardUrl: `${options.baseUrl}/dashboard`,
      apAddress: options.setupApAddress,
      ownerNeeded: options.ownerNeeded,
    }).routes(),
  );
}

export interface InstanceWebOptions {
  resolveToken: TokenResolver;
  baseUrl: string;
  setupApAddress: string | null;
  /** The setup AP's passphrase, which proves holding the box when creating the owner away from the AP. */
  setupKey: () => string | null;
  /** The first run's owner account. */
  onboarding: OnboardingService;
  /** Invites on the owner API and the pages their links open. */
  invites: InvitesService;
  /** The instance's identity and public address on the owner API. */
  instanceSettings: Omit<InstanceSettingsOptions, 'resolveToken' | 'log'>;
  /** The flow behind /api/nestbox/v1/reachability; null when the box has no HTTPS port. */
  reachability: ReachabilityFlow | null;
  log: Logger;
}

export function mountInstanceWeb(http: Pick<HttpServer, 'use'>, options: InstanceWebOptions): void {
  const { resolveToken, baseUrl, log } = options;
  http.use(
    onboardingRouter({
      onboarding: options.onboarding,
      setupKey: options.setupKey,
      apAddress: options.setupApAddress,
      baseUrl,
      log,
    }).routes(),
  );
  http.use(instanceSettingsRouter({ ...options.instanceSettings, resolveToken, log }).routes());
  http.use(invitesRouter({ invites: options.invites, baseUrl, resolveToken, log }).routes());
  http.use(reachabilityRouter({ flow: options.reachability, resolveToken }).routes());
}
