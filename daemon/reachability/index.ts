/**
 * The reachability subsystem assembled from the configuration: the HTTPS listener, the port
 * mapper, the dynamic-DNS client, the ACME issuer and the flow that drives them. Built by the
 * composition root before the owner's routes are mounted (they are handed the flow itself), and
 * started once the HTTP server listens (the HTTPS listener serves the same app).
 */
import { readFile } from 'node:fs/promises';
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
      await flow.start();
    },
    async stop(stopOptions = {}) {
      await flow.stop(stopOptions.keepMappings === true);
      await https?.stop();
    },
  };
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
