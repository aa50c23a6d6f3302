/**
 * Mounts the connectivity side of the HTTP surface in its order: captive-portal redirects first
 * (they apply to every path while in setup mode), then the count of a person at the portal
 * (requests from the setup AP's side), then the setup portal, the owner API and the
 * dashboard page, with the first run's owner account beside them.
 */
import type { NetworksRepo } from '../connectivity/networks-repo.js';
import type { ConnectivityParts } from '../connectivity/subsystem.js';
import type { DeviceState } from '../device/state.js';
import type { TokenResolver } from '../lib/grants.js';
import type { HttpServer } from '../http/server.js';
import { silentLogger, type Logger } from '../log/logger.js';
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
  connectivity: ConnectivityParts;
  resolveToken: TokenResolver;
  baseUrl: string;
  httpHost: string;
  httpPort: number;
  setupApAddress: string | null;
  /** The port phones reach the portal on at the setup address (80 with the network layer on). */
  setupPortalPort?: number;
  /** The first run's owner account (the social instance's); without it the flow is not offered. */
  onboarding?: OnboardingService | null;
  /** Invites on the owner API and the pages their links open. */
  invites?: InvitesService | null;
  /** The instance's identity and public address on the owner API. */
  instanceSettings?: Omit<InstanceSettingsOptions, 'resolveToken' | 'log'> | null;
  log?: Logger;
  /** The reachability flow behind /api/nestbox/v1/reachability (null until it has started), and whether it will. */
  reachability?: { flow: () => ReachabilityFlow | null; enabled: boolean };
}

export function mountConnectivityWeb(http: Pick<HttpServer, 'use'>, options: ConnectivityWebOptions): void {
  const { connectivity, resolveToken } = options;
  http.use(
    captivePortal({
      inSetupMode: () => connectivity.portal.inSetupMode(),
      apAddress: options.setupApAddress,
      httpPort: options.setupPortalPort ?? options.httpPort,
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
      resolveToken,
      dashboardUrl: `${options.baseUrl}/dashboard`,
      apAddress: options.setupApAddress,
      ownerNeeded: async () => (await options.onboarding?.ownerNeeded()) ?? false,
    }).routes(),
  );
  if (options.onboarding) {
    http.use(
      onboardingRouter({
        onboarding: options.onboarding,
        setupKey: () => connectivity.portal.passphrase ?? null,
        apAddress: options.setupApAddress,
        baseUrl: options.baseUrl,
        log: options.log ?? silentLogger,
      }).routes(),
    );
  }
  if (options.instanceSettings) {
    http.use(
      instanceSettingsRouter({ ...options.instanceSettings, resolveToken, log: options.log ?? silentLogger }).routes(),
    );
  }
  if (options.invites) {
    http.use(
      invitesRouter({
        invites: options.invites,
        baseUrl: options.baseUrl,
        resolveToken,
        log: options.log ?? silentLogger,
      }).routes(),
    );
  }
  http.use(ownerApiRouter({ device: options.device, networks: options.networks, connectivity, resolveToken }).routes());
  if (options.reachability) http.use(reachabilityRouter({ ...options.reachability, resolveToken }).routes());
  http.use(dashboardRouter().routes());
}
