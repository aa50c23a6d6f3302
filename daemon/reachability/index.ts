/**
 * The reachability subsystem assembled from the configuration: the HTTPS listener, the port
 * mapper, the dynamic-DNS client, the ACME issuer and the flow that drives them. Built by the
 * composition root before the owner's routes are mounted (they are handed the flow itself), and
 * started once the HTTP server listens (the HTTPS listener serves the same app).
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import type { ReachabilityCheck } from '../social/onboarding/reachability.js';
import type { PeerDnsOptions } from '../social/federation/net/dns.js';
import { AcmeIssuer } from './acme.js';
import { echoedAddress, lookupThrough } from './addresses.js';
import { CertificateStore } from './certificate-store.js';
import { ChallengeResponder } from './challenges.js';
import { ReachabilityFlow, type BaseUrlControl } from './flow.js';
import { httpGet } from './http-get.js';
import { HttpsListener, type StreamingDoor } from './https-listener.js';
import type { ReachabilityView } from './model.js';
import { readIpv6Presence } from './ipv6-address.js';
import { Ipv6Pinholes } from './pinholes.js';
import { PortMapper } from './port-mapper.js';
import { PublicName } from './public-name.js';
import { SecretFiles } from './secret-files.js';
import { selfCheck } from './self-check.js';

export interface ReachabilityOptions {
  config: Config;
  log: Logger;
  challenges: ChallengeResponder;
  /** The station lease (network layer on), or null. */
  lease: () => { address: string; gateway: string | null; dns: readonly string[] } | null;
  publish: (view: ReachabilityView) => void;
  health: (health: ComponentHealth) => void;
  check: ReachabilityCheck;
  baseUrl: BaseUrlControl;
  /** The app's request listener, for the HTTPS listener. */
  requestListener: ConstructorParameters<typeof HttpsListener>[0];
  /** The streaming server's paths and upgrades on the HTTPS listener. */
  streaming?: StreamingDoor | null;
}

export interface Reachability {
  flow: ReachabilityFlow;
  /** Listens on the HTTPS port (a port in use is logged; the flow then has no listener) and starts the flow. */
  start(): Promise<void>;
  stop(options?: { keepMappings?: boolean }): Promise<void>;
}

/** Builds the parts; nothing listens and the flow does not run until `start`. */
export async function buildReachability(options: ReachabilityOptions): Promise<Reachability> {
  const { config, log } = options;
  const extraCa = config.acmeCaFile ? await readFile(config.acmeCaFile, 'utf8') : null;
  const dns: PeerDnsOptions = {
    servers: config.network === 'on' ? () => options.lease()?.dns ?? null : undefined,
  };
  const lookup = lookupThrough(dns);
  const files = new SecretFiles(join(config.dataDir, 'reachability'));
  const certificates = new CertificateStore(files);
  const https = config.httpsPort
    ? new HttpsListener(options.requestListener, config.httpHost, config.httpsPort, options.streaming)
    : null;
  // The public side's plain HTTP (challenges, redirects) over IPv6 too, beside the IPv4 listener.
  let httpV6: Server | null = null;
  const ipv6Served = () =>
    (httpV6 !== null || config.httpHost.includes(':')) && https?.listening === true && https.ipv6;
  const publicName = new PublicName({ http: { lookup, extraCa }, dns, lookup });
  const homeUrl = `http://${config.hostname}.local${config.httpPort === 80 ? '' : `:${config.httpPort}`}`;
  const flow = new ReachabilityFlow({
    files,
    certificates,
    issuer: new AcmeIssuer({
      directoryUrl: config.acmeDirectory,
      extraCa,
      lookup,
      store: certificates,
      challenges: options.challenges,
      dnsTxt: () => publicName.dnsChallenge(),
    }),
    mapper: config.portMapping === 'on' ? new PortMapper() : null,
    pinholes: config.portMapping === 'on' ? new Ipv6Pinholes() : null,
    // The station interface with the network layer on; any interface without it.
    ipv6: async () => (ipv6Served() ? readIpv6Presence(config.network === 'on' ? config.staIface : null) : null),
    https,
    publicName,
    lease: options.lease,
    machineAddressFallback: config.network === 'off',
    publish: options.publish,
    health: options.health,
    log,
    ports: { http: config.httpPort, https: config.httpsPort },
    homeUrl,
    addressEcho: config.addressEchoUrl ? echoFrom(config.addressEchoUrl, lookup, extraCa) : null,
    check: selfCheck(options.check, extraCa),
    baseUrl: options.baseUrl,
    cycleMs: config.reachabilityCycleS * 1000,
  });
  return {
    flow,
    async start() {
      if (https) {
        try {
          log.info('HTTPS listener started', { port: await https.start() });
        } catch (error) {
          log.error('HTTPS listener did not start', { port: config.httpsPort, error });
        }
      }
      if (config.httpHost === '0.0.0.0') httpV6 = await listenIpv6(options.requestListener, config.httpPort);
      await flow.start();
    },
    async stop(stopOptions = {}) {
      await flow.stop(stopOptions.keepMappings === true);
      await https?.stop();
      const server = httpV6;
      if (server) {
        const closed = new Promise((resolve) => server.close(resolve));
        server.closeAllConnections();
        await closed;
      }
    },
  };
}

/** A plain HTTP listener of the same app on `[::]:port` (IPv6 only); null where IPv6 is missing. */
async function listenIpv6(listener: ReachabilityOptions['requestListener'], port: number): Promise<Server | null> {
  const server = createServer(listener);
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 15000;
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen({ port, host: '::', ipv6Only: true }, () => resolve(server));
  });
}

function echoFrom(url: string, lookup: ReturnType<typeof lookupThrough>, extraCa: string | null) {
  return () =>
    echoedAddress(url, async (target) => {
      const answer = await httpGet(String(target), { lookup, extraCa, timeoutMs: 8000 });
      return new Response(answer.body, { status: answer.status });
    });
}

export { ChallengeResponder } from './challenges.js';
export { publicHttp } from './public-http.js';
export type { ReachabilityView } from './model.js';
