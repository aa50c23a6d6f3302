/**
 * What the host believes about the coprocessor's firmware, pure: its generation, version and chip,
 * the station configuration it holds, the network it is on and the one it retries by itself, fed
 * as time-stamped inputs (events, and what the runner's operations read or did); and the decisions
 * drawn from that belief (which network to try first, how a join goes, when a refused password
 * counts, which disconnects are drops, how to stop the station, why a connect failed). Like the
 * machine it never reads a clock, waits or talks to the device: the runner asks and carries out.
 *
 * The current firmware (2024 on, Espressif's slave_control.c) keeps retrying the configuration it
 * holds after every disconnect and applies a new one only at its next connected or disconnected
 * event; the documented firmware answers ConnectAP with the outcome and retries nothing.
 */
import type { FirmwareInfo, WifiModeName } from '../coproc/api.js';
import type { CoprocessorState } from '../device/state.js';
import { classifyConnectRefusal, type ConnectFailure } from './failures.js';
import { sameSsid } from './network-input.js';
import type { SavedNetwork } from './networks-repo.js';

export type FirmwareGeneration = FirmwareInfo['generation'];

/** A disconnect reason this recent explains a refused connect (newer firmware sends them). */
export const REASON_FRESH_MS = 5000;

export type FirmwareInput =
  /** The boot announcement (serial framing): the chip and, from the current firmware only, the version. */
  | { type: 'boot'; chip: string | null; firmwareVersion: string | null }
  /** The GetFwVersion probe at an initialisation (silence: the documented firmware). */
  | { type: 'probed'; version: string | null; generation: FirmwareGeneration }
  /** GetAPConfig at an initialisation: the network the station is on, null when not connected. */
  | { type: 'stationRead'; ssid: Uint8Array | null }
  /** Event_StationDisconnectFromAP; the current firmware names the network. `stationJoined`: the machine's station is associated or up. */
  | { type: 'stationDisconnected'; reason: number; ssid: Uint8Array | null; stationJoined: boolean }
  /** A person submitted this network: it goes first at the next attempt. */
  | { type: 'submitted'; network: SavedNetwork }
  /** ConnectAP was answered on the current firmware: it holds this configuration now. */
  | { type: 'configHandedOver'; network: SavedNetwork }
  | { type: 'joined'; network: SavedNetwork }
  | { type: 'joinFailed' }
  /** A mode without the station was set (or the station was dropped): its retries end. */
  | { type: 'stationStopped' }
  /** The mode read back after StartSoftAP: AP-only on the current firmware ends its retries. */
  | { type: 'modeAfterSoftAp'; mode: WifiModeName | undefined };

export type TimedFirmwareInput = FirmwareInput & { at: number };

/** How a join of a network goes on the current firmware, from what it holds and is on. */
export type JoinPlan =
  /** It is on that network with that passphrase already. */
  | { kind: 'joined' }
  /** Its own retry of that network is under way: wait for its outcome, no second ConnectAP. */
  | { kind: 'ownRetry' }
  /** ConnectAP; connected elsewhere, a DisconnectAP after it makes the firmware apply it. */
  | { kind: 'handOver'; disconnectAfter: boolean };

/** What is known when a connect failed, for telling why. */
export type FailureEvidence =
  /** The current firmware's events said no. */
  | { kind: 'refused'; failure: ConnectFailure }
  /** The link failed (timeout, transport), not the device. */
  | { kind: 'link' }
  /** The device said only "failed"; `seen` is the network in a fresh scan, null when absent. */
  | { kind: 'device'; seen: { secured: boolean } | null; hidden: boolean; startedAt: number };

export type FirmwareIdentity = Pick<CoprocessorState, 'firmware' | 'chip' | 'firmware_version' | 'firmware_generation'>;

export class FirmwareModel {
  private chip: string | null = null;
  private version: string | null = null;
  /** The generation found at the last initialisation; null before one. */
  private found: FirmwareGeneration | null = null;
  /** The generation as people see it: a boot announcement with a version already tells `current`. */
  private shown: FirmwareGeneration | null = null;
  /** The last boot announcement carried a firmware version (only the current firmware's does); null: none seen. */
  private bootAnnouncedVersion: boolean | null = null;
  /** The station configuration it holds as far as this host knows (null: unknown, as after a boot). */
  private config: { ssid: Uint8Array; passphrase: string } | null = null;
  private joinedSsid: Uint8Array | null = null;
  private retrying: Uint8Array | null = null;
  private lastReason: { reason: number; at: number } | null = null;
  private preferred: number | null = null;
  private chosen: SavedNetwork | null = null;

  /**
   * Feeds one input. Returns whether the connectivity machine hears of it: only a disconnect of
   * the station the box is on is news to it.
   */
  observe(input: TimedFirmwareInput): boolean {
    switch (input.type) {
      case 'boot':
        if (input.chip) this.chip = input.chip;
        if (input.firmwareVersion) {
          this.version = input.firmwareVersion;
          this.shown = 'current';
        }
        this.bootAnnouncedVersion = input.firmwareVersion !== null;
        return false;
      case 'probed':
        if (input.version) this.version = input.version;
        // A probe unanswered on a busy link is not proof of the documented firmware when the boot
        // announcement carried a version.
        this.found = this.bootAnnouncedVersion === true ? 'current' : input.generation;
        this.shown = this.found;
        this.config = null;
        this.retrying = null;
        return false;
      case 'stationRead':
        this.joinedSsid = input.ssid;
        return false;
      case 'stationDisconnected':
        return this.disconnected(input);
      case 'submitted':
        this.preferred = input.network.id;
        this.chosen = input.network;
        return false;
      case 'configHandedOver':
        this.config = { ssid: input.network.ssid, passphrase: input.network.passphrase };
        this.retrying = null;
        return false;
      case 'joined':
        this.joinedSsid = input.network.ssid;
        return false;
      case 'joinFailed':
        this.joinedSsid = null;
        return false;
      case 'stationStopped':
        this.retrying = null;
        this.joinedSsid = null;
        return false;
      case 'modeAfterSoftAp':
        // The current firmware goes AP-only unless the station is connected, which ends its own retries.
        if (this.found === 'current' && input.mode === 'softap') this.retrying = null;
        return false;
    }
  }

  private disconnected(input: Extract<TimedFirmwareInput, { type: 'stationDisconnected' }>): boolean {
    this.lastReason = { reason: input.reason, at: input.at };
    // The current firmware names the network: a try of another one (its previous configuration,
    // or one being connected) is not the station the box is on dropping.
    if (input.ssid && this.joinedSsid && !sameSsid(input.ssid, this.joinedSsid)) return false;
    // Dropped from where it was, the current firmware tries that network again by itself.
    if (input.ssid && input.stationJoined) this.retrying = input.ssid;
    return true;
  }

  /** The generation found at the last initialisation; null before one. */
  get generation(): FirmwareGeneration | null {
    return this.found;
  }

  /** The network chosen for the last attempt (or submitted), null before any. */
  get target(): SavedNetwork | null {
    return this.chosen;
  }

  /** The firmware as DeviceState shows it: "ESP-Hosted-FG <version> (<chip>)", its version, chip and generation. */
  identity(): FirmwareIdentity {
    const version = this.version ? ` ${this.version}` : '';
    const firmware = this.chip || this.version ? `ESP-Hosted-FG${version}${this.chip ? ` (${this.chip})` : ''}` : null;
    return { firmware, chip: this.chip, firmware_version: this.version, firmware_generation: this.shown };
  }

  /**
   * The current firmware reports a connect through events and retries after every disconnect, a
   * DisconnectAP included: only a mode without the station drops it. The documented firmware
   * answers ConnectAP and DisconnectAP with their outcome.
   */
  get connectsByEvents(): boolean {
    return this.found === 'current';
  }

  /**
   * Not connected at an initialisation, the current firmware keeps trying what it holds (after a
   * fresh flash, the example network of its build): the host decides what is tried, so that stops.
   */
  stopsStationAtInit(stationConnected: boolean): boolean {
    return this.found === 'current' && !stationConnected;
  }

  /** The mode that ends the station but keeps the soft AP; null when the station is not in `mode`. */
  stationlessMode(mode: WifiModeName): WifiModeName | null {
    if (mode === 'apsta') return 'softap';
    if (mode === 'station') return 'none';
    return null;
  }

  /**
   * The network for attempt `attempt` (from 1): the one a person submitted, else the one the
   * firmware is already retrying by itself (no second attempt races it), else the next in turn.
   */
  chooseNetwork(candidates: readonly SavedNetwork[], attempt: number): SavedNetwork {
    const network =
      candidates.find((candidate) => candidate.id === this.preferred) ??
      candidates.find((candidate) => this.retries(candidate)) ??
      candidates[(attempt - 1) % candidates.length];
    this.preferred = null;
    this.chosen = network;
    return network;
  }

  /** The firmware is retrying this network, with this passphrase, by itself. */
  retries(network: SavedNetwork): boolean {
    return this.retrying !== null && sameSsid(this.retrying, network.ssid) && this.holds(network);
  }

  /**
   * How to join `network` on the current firmware, given the network it is on (`joinedNow`, from
   * GetAPConfig) and whether its own retry of this network was being watched before asking.
   */
  joinPlan(network: SavedNetwork, joinedNow: Uint8Array | null, ownRetryWatched: boolean): JoinPlan {
    if (joinedNow !== null && sameSsid(joinedNow, network.ssid) && this.holds(network)) return { kind: 'joined' };
    if (ownRetryWatched) return { kind: 'ownRetry' };
    return { kind: 'handOver', disconnectAfter: joinedNow !== null };
  }

  /**
   * The firmware's first try after a ConnectAP is of the configuration it held before. Held for
   * this network with another passphrase (or unknown, as after a boot), its refusal would read as
   * this one's: the password counts as refused at the second refusal.
   */
  refusalsNeeded(network: SavedNetwork): number {
    const held = this.config;
    return held !== null && (!sameSsid(held.ssid, network.ssid) || held.passphrase === network.passphrase) ? 1 : 2;
  }

  /** Why a connect failed. A device's bare "failed" is told apart by the scan and a fresh disconnect reason. */
  failureOf(evidence: FailureEvidence): ConnectFailure {
    if (evidence.kind === 'refused') return evidence.failure;
    if (evidence.kind === 'link') return 'timeout';
    const last = this.lastReason;
    const reason = last && last.at >= evidence.startedAt - REASON_FRESH_MS ? last.reason : null;
    if (!evidence.seen && evidence.hidden && reason === null) return 'failed';
    return classifyConnectRefusal(evidence.seen, reason);
  }

  /** The firmware holds this network with this passphrase (as far as this host knows). */
  private holds(network: SavedNetwork): boolean {
    const held = this.config;
    return held !== null && sameSsid(held.ssid, network.ssid) && held.passphrase === network.passphrase;
  }
}
