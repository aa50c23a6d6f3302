/**
 * "Make the box reachable": one cycle runs the steps in order (port mapping → external address →
 * DNS → certificate → self-check → switch of the public address) and runs again every 30 s (or as
 * configured), or sooner when a renewal falls due, so a changed address, a router that forgot its
 * mappings or a certificate reaching two thirds of its life are followed without anyone asking.
 * Nothing half-done touches the instance: the public address switches only once a certificate for
 * the name is in hand and the self-check did not find another server there.
 */
import { networkInterfaces } from 'node:os';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import { AcmeError, describeAcmeFailure, type AcmeIssuer } from './acme.js';
import { isBehindAnotherNat } from './addresses.js';
import { combinedMappingStep, describePairs, familyReach, onlyOverIpv6, type FamilyOutcome } from './families.js';
import type { Ipv6Presence } from './ipv6-address.js';
import { ipv6Outcome, type Ipv6Pinholes } from './pinholes.js';
import { Backoff } from './backoff.js';
import { clockSkewMs, clockSkewWords } from './clock-skew.js';
import { nearlyExpired, renewalDue, type CertificateStore, type IssuedCertificate } from './certificate-store.js';
import type { HttpsListener } from './https-listener.js';
import {
  dyndnsView,
  initialView,
  type ManualForwarding,
  type ReachabilitySettings,
  type ReachabilityView,
  type Step,
} from './model.js';
import { MappingRefused, type PortMapper, type PortPair } from './port-mapper.js';
import type { PublicName } from './public-name.js';
import type { SecretFiles } from './secret-files.js';

export interface BaseUrlControl {
  current(): string;
  /** Moves the instance to `url` (links and ids rewritten), without a restart. */
  switchTo(url: string): Promise<void>;
}

export interface ReachabilityFlowOptions {
  files: SecretFiles;
  certificates: CertificateStore;
  issuer: AcmeIssuer;
  /** Null when NESTBOX_PORT_MAPPING is off. */
  mapper: PortMapper | null;
  /** The IPv6 firewall's pinholes (PCP); null when NESTBOX_PORT_MAPPING is off. */
  pinholes?: Ipv6Pinholes | null;
  /** The box's global IPv6 address now, or null; absent: IPv6 is not looked at. */
  ipv6?: () => Promise<Ipv6Presence | null>;
  https: HttpsListener | null;
  publicName: PublicName;
  /** The station lease: the box's address (CIDR) and its router; null without one. */
  lease: () => { address: string; gateway: string | null } | null;
  /** Without the network layer there is no lease: the first address of the machine stands in. */
  machineAddressFallback: boolean;
  publish: (view: ReachabilityView) => void;
  health: (health: ComponentHealth) => void;
  log: Logger;
  ports: { http: number; https: number | null };
  /** The address the home network reaches the box at (`http://<hostname>.local`). */
  homeUrl: string;
  addressEcho: (() => Promise<string | null>) | null;
  check: (name: string, externalAddress: string | null) => Promise<Step>;
  baseUrl: BaseUrlControl;
  /** Time between cycles (NESTBOX_REACHABILITY_CYCLE_S; 30 s by default). */
  cycleMs?: number;
  now?: () => number;
}

const SETTINGS_FILE = 'settings.json';
const DEFAULT_CYCLE_MS = 30_000;
const MIN_WAIT_MS = 1000;

export class ReachabilityFlow {
  private settings: ReachabilitySettings | null = null;
  private certificate: IssuedCertificate | null = null;
  /** The box's clock ahead of the certificate authority's (ms), learnt at the last issuance. */
  private clockSkew = 0;
  private view: ReachabilityView = initialView();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly certificateBackoff: Backoff;
  private readonly now: () => number;

  constructor(private readonly options: ReachabilityFlowOptions) {
    this.now = options.now ?? Date.now;
    this.certificateBackoff = new Backoff(30_000, 6 * 3600_000, this.now);
  }

  get current(): ReachabilityView {
    return this.view;
  }

  /** The name the instance has switched to (redirects and HSTS apply to it), or null. */
  switchedName(): string | null {
    return this.view.public_url ? new URL(this.view.public_url).hostname : null;
  }

  async start(): Promise<void> {
    const text = await this.options.files.read(SETTINGS_FILE);
    this.settings = text ? (JSON.parse(text) as ReachabilitySettings) : null;
    this.certificate = await this.options.certificates.certificate();
    if (this.certificate) this.options.https?.useCertificate(this.certificate.chain, this.certificate.key);
    if (!this.settings) return this.showOff('not set up: enter a name to make the box reachable');
    this.view = { ...initialView(), name: this.settings.name, dyndns: dyndnsView(this.settings.dyndns) };
    const url = `https://${this.settings.name}`;
    if (this.options.baseUrl.current() === url) this.view.public_url = url;
    // DeviceState has the switched address before the first cycle ends (MQTT's dashboard link).
    this.options.publish(this.view);
    this.runSoon();
  }

  /** New settings from the owner: saved (0600), then the flow starts again from the top. */
  async configure(settings: ReachabilitySettings): Promise<ReachabilityView> {
    await this.options.files.write(SETTINGS_FILE, JSON.stringify(settings));
    const renamed = this.settings?.name !== settings.name;
    this.settings = settings;
    this.options.publicName.reset();
    this.certificateBackoff.reset();
    this.view = {
      ...initialView(),
      name: settings.name,
      dyndns: dyndnsView(settings.dyndns),
      public_url: renamed ? null : this.view.public_url,
      steps: {
        dns: { state: 'pending', detail: null },
        port_mapping: { state: 'pending', detail: null },
        certificate: { state: 'pending', detail: null },
        switch: { state: 'pending', detail: null },
        check: { state: 'pending', detail: null },
      },
    };
    this.publish();
    this.runSoon();
    return this.view;
  }

  /**
   * The owner asks to try again now: the waits after failures (DNS update, certificate) are
   * forgotten and a cycle starts at once, with the saved settings (no secret is asked again).
   * False when there is nothing to retry (not set up).
   */
  retry(): boolean {
    if (!this.settings) return false;
    this.options.publicName.retry();
    this.certificateBackoff.reset();
    this.runSoon();
    return true;
  }

  /** The owner turns it off: mappings removed, the public address back to the home one. */
  async disable(): Promise<void> {
    this.settings = null;
    this.cancelTimer();
    await this.running;
    await this.options.mapper?.unmapAll();
    await this.closePinholes();
    await this.options.files.remove(SETTINGS_FILE);
    if (this.options.baseUrl.current() !== this.options.homeUrl)
      await this.options.baseUrl.switchTo(this.options.homeUrl);
    this.showOff('turned off by the owner');
  }

  /** Stops the cycles; the mappings are removed unless `keepMappings` (an in-process reload). */
  async stop(keepMappings = false): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    await this.running;
    if (!keepMappings) {
      await this.options.mapper?.unmapAll();
      await this.closePinholes();
    }
  }

  private async closePinholes(): Promise<void> {
    const problems = (await this.options.pinholes?.closeAll()) ?? [];
    if (problems.length) this.options.log.warn('IPv6 pinholes not deleted', { problems });
  }

  /** Runs a cycle now (or right after the one running). */
  runSoon(): void {
    if (this.stopped) return;
    this.cancelTimer();
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.cycle()
      .catch((error) => this.options.log.error('reachability cycle failed', { error }))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.runSoon();
        } else this.schedule();
      });
  }

  /** Now on the certificate authority's clock, which the certificates' dates are in. */
  private authorityNow(): number {
    return this.now() - this.clockSkew;
  }

  private schedule(): void {
    if (this.stopped || !this.settings) return;
    let wait = this.options.cycleMs ?? DEFAULT_CYCLE_MS;
    const cert = this.certificate;
    if (cert && cert.name === this.settings.name) {
      const start = Date.parse(cert.notBefore);
      const due = start + ((Date.parse(cert.notAfter) - start) * 2) / 3;
      wait = Math.min(wait, Math.max(this.certificateBackoff.nextAttemptAt - this.now(), due - this.authorityNow()));
    }
    this.timer = setTimeout(() => this.runSoon(), Math.max(MIN_WAIT_MS, wait));
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async cycle(): Promise<void> {
    const settings = this.settings;
    if (!settings) return;
    const steps = { ...this.view.steps };
    const mapping = await this.mapPorts();
    const presence = (await this.options.ipv6?.().catch(() => null)) ?? null;
    const ipv6 = await ipv6Outcome(presence, this.options.pinholes ?? null, this.portPairs());
    let external = mapping.external;
    if (!external && this.options.addressEcho) external = await this.options.addressEcho().catch(() => null);
    const anotherNat = external !== null && isBehindAnotherNat(external);
    const ipv4: FamilyOutcome = {
      mapping: mapping.step,
      address: external && !anotherNat ? external : null,
      blocked: anotherNat
        ? `the external address ${external} is not public (carrier-grade or double NAT): a name pointing at it cannot reach the box`
        : null,
    };
    steps.port_mapping = combinedMappingStep(mapping.step, ipv6.mapping);
    this.update({
      external_address: external,
      ipv6_address: ipv6.address,
      mapping_method: mapping.method,
      manual: mapping.manual,
      steps,
    });
    if (!this.isCurrent(settings)) return;

    steps.dns =
      ipv4.blocked && !ipv6.address
        ? { state: 'failed', detail: ipv4.blocked }
        : await this.options.publicName.step(
            settings.name,
            { ipv4: ipv4.address, ipv6: ipv6.address },
            settings.dyndns,
          );
    const families = familyReach(ipv4, ipv6, this.options.publicName.pointing, this.options.publicName.withdrawnIpv6);
    this.update({ steps, families });

    steps.certificate = await this.certificateStep(settings.name, steps.dns.state === 'ok');
    this.update({ steps, certificate: this.certificateView(settings.name) });
    if (!this.isCurrent(settings)) return;

    const usable = this.certificate?.name === settings.name && this.options.https?.hasCertificate === true;
    // Over IPv4 through the router when it forwards; else at the box's IPv6 address.
    steps.check = usable
      ? await this.options.check(
          settings.name,
          ipv4.address ?? (families.ipv6.state === 'ok' ? ipv6.address : external),
        )
      : { state: 'pending', detail: 'waits for the certificate' };
    steps.switch =
      usable && steps.check.state !== 'failed' ? await this.switchStep(settings.name) : this.switchWaiting(steps);
    this.update({ steps });
    this.options.log.debug('reachability cycle', {
      steps: Object.fromEntries(Object.entries(steps).map(([step, { state }]) => [step, state])),
    });
  }

  private async mapPorts(): Promise<{
    step: Step;
    external: string | null;
    method: string | null;
    manual: ManualForwarding | null;
  }> {
    const lease = this.options.lease();
    const internal = lease?.address.split('/')[0] ?? (this.options.machineAddressFallback ? firstLocalAddress() : null);
    const pairs = this.portPairs();
    const manual = internal
      ? { internal_address: internal, ports: pairs.map((p) => ({ ...p, protocol: 'TCP' as const })) }
      : null;
    const byHand = manual ? ` Forward ${describePairs(pairs)} to ${internal} on the router by hand.` : '';
    if (!this.options.mapper)
      return {
        step: { state: 'off', detail: `port mapping is turned off (NESTBOX_PORT_MAPPING=off).${byHand}` },
        external: null,
        method: null,
        manual,
      };
    if (!internal)
      return {
        step: { state: 'pending', detail: 'waiting for a network address' },
        external: null,
        method: null,
        manual,
      };
    try {
      const result = await this.options.mapper.map(internal, lease?.gateway ?? null, pairs);
      return {
        step: {
          state: 'ok',
          detail: `the router forwards ${describePairs(pairs)} to ${internal} (${result.method === 'upnp' ? 'UPnP' : 'NAT-PMP'})`,
        },
        external: result.externalAddress,
        method: result.method,
        manual: null,
      };
    } catch (error) {
      const reason =
        error instanceof MappingRefused ? error.message : `port mapping failed: ${(error as Error).message}`;
      return {
        step: { state: 'failed', detail: `${reason}.${byHand}` },
        external: error instanceof MappingRefused ? error.externalAddress : null,
        method: null,
        manual,
      };
    }
  }

  /** The HTTPS listener while it listens (one whose port was taken at start is none). */
  private listener(): HttpsListener | null {
    return this.options.https?.listening ? this.options.https : null;
  }

  private portPairs(): PortPair[] {
    const pairs = [{ external: 80, internal: this.options.ports.http }];
    if (this.options.ports.https && this.listener())
      pairs.unshift({ external: 443, internal: this.options.ports.https });
    return pairs;
  }

  private async certificateStep(name: string, dnsReady: boolean): Promise<Step> {
    const now = this.authorityNow();
    const held = this.certificate?.name === name ? this.certificate : null;
    const https = this.listener();
    if (!https) return { state: 'off', detail: 'no HTTPS listener (NESTBOX_HTTPS_PORT is empty)' };
    if (held && !renewalDue(held, now)) return { state: 'ok', detail: `valid until ${held.notAfter}` };
    if (!dnsReady)
      return held
        ? this.heldStep(held, 'renewal waits for the name to point at the box')
        : { state: 'pending', detail: 'waits for the name to point at the box' };
    if (!this.certificateBackoff.due())
      return held
        ? this.heldStep(held, 'renewal failed; trying again later')
        : { state: 'failed', detail: this.view.steps.certificate.detail ?? 'trying again later' };
    this.update({
      steps: { ...this.view.steps, certificate: { state: 'working', detail: 'asking the certificate authority' } },
    });
    try {
      const started = this.now();
      const issued = await this.options.issuer.issue(name);
      https.useCertificate(issued.chain, issued.key);
      this.certificate = issued;
      this.clockSkew = clockSkewMs(issued.notBefore, this.now());
      this.certificateBackoff.reset();
      this.options.log.info(held ? 'certificate renewed' : 'certificate issued', {
        name,
        not_after: issued.notAfter,
        ms: this.now() - started,
      });
      const proof = this.options.issuer.lastChallenge;
      const clock = clockSkewWords(this.clockSkew);
      if (clock) this.options.log.warn('clock off', { skew_ms: this.clockSkew });
      return {
        state: 'ok',
        detail:
          `valid until ${issued.notAfter}${proof ? ` (name proved with ${proof === 'dns-01' ? 'DNS-01' : 'HTTP-01'})` : ''}` +
          (clock ? `; ${clock}` : ''),
      };
    } catch (error) {
      this.certificateBackoff.failed();
      const detail = describeAcmeFailure(error);
      this.options.log.warn('certificate not obtained', {
        name,
        problem: error instanceof AcmeError ? error.problem : null,
        detail,
      });
      return held ? this.heldStep(held, detail) : { state: 'failed', detail };
    }
  }

  /** A certificate still in hand while its renewal waits or fails: fine until less than a sixth remains. */
  private heldStep(held: IssuedCertificate, why: string): Step {
    return nearlyExpired(held, this.authorityNow())
      ? { state: 'failed', detail: `expires at ${held.notAfter}; ${why}` }
      : { state: 'ok', detail: `valid until ${held.notAfter}; ${why}` };
  }

  private async switchStep(name: string): Promise<Step> {
    const url = `https://${name}`;
    if (this.options.baseUrl.current() !== url) {
      try {
        await this.options.baseUrl.switchTo(url);
        this.options.log.info('public address switched', { base_url: url });
      } catch (error) {
        return { state: 'failed', detail: `the public address could not be switched: ${(error as Error).message}` };
      }
    }
    this.view.public_url = url;
    return { state: 'ok', detail: `the instance's public address is ${url}` };
  }

  private switchWaiting(steps: ReachabilityView['steps']): Step {
    if (this.view.public_url)
      return { state: 'ok', detail: `the instance's public address is ${this.view.public_url}` };
    return {
      state: 'pending',
      detail:
        steps.check.state === 'failed'
          ? 'waits for the check to pass'
          : `waits for the certificate; the instance keeps ${this.options.baseUrl.current()} until then`,
    };
  }

  private certificateView(name: string): ReachabilityView['certificate'] {
    return this.certificate?.name === name ? { not_after: this.certificate.notAfter } : null;
  }

  private isCurrent(settings: ReachabilitySettings): boolean {
    return this.settings === settings && !this.stopped;
  }

  private update(patch: Partial<ReachabilityView>): void {
    this.view = { ...this.view, ...patch, steps: { ...(patch.steps ?? this.view.steps) } };
    this.publish();
  }

  private showOff(detail: string): void {
    this.view = initialView();
    this.publish();
    this.options.health({ status: 'off', detail });
  }

  private publish(): void {
    this.options.publish(this.view);
    if (!this.settings) return;
    const failed = Object.entries(this.view.steps).find(([, step]) => step.state === 'failed');
    const ipv6Only = this.view.public_url ? onlyOverIpv6(this.view.families) : null;
    this.options.health(
      failed
        ? { status: 'degraded', detail: `${failed[0].replace('_', ' ')}: ${failed[1].detail ?? 'failed'}` }
        : ipv6Only
          ? {
              status: 'degraded',
              detail: `reachable at ${this.view.public_url} over IPv6 only (servers without IPv6 cannot reach it); ${ipv6Only}`,
              certificate_expires: this.view.certificate?.not_after ?? null,
            }
          : {
              status: 'ok',
              detail: this.view.public_url ? `reachable at ${this.view.public_url}` : 'setting up',
              certificate_expires: this.view.certificate?.not_after ?? null,
            },
    );
  }
}

function firstLocalAddress(): string | null {
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  return null;
}
