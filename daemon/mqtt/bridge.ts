/**
 * The MQTT bridge: DeviceState → broker (availability, retained state, events, Home Assistant
 * discovery) and broker → DeviceCommands (commands and their results). It reads DeviceState and
 * never writes it. It waits for the device id (the station MAC) before connecting, because the
 * client id and the Last Will's topic are made from it; a broker that is down or refuses the login
 * only makes it report itself degraded and keep retrying, at least every 5 s. What stays retained
 * besides state and availability (discovery, an old identity's leftovers) is retained.ts's.
 */
import mqtt, { type IClientPublishOptions, type MqttClient } from 'mqtt';
import type { DeviceCommands } from '../device/commands.js';
import type { DeviceEvent, DeviceState, DeviceStateChange } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import { Jobs } from '../lifecycle/jobs.js';
import type { Logger } from '../log/logger.js';
import { withoutUserInfo } from '../config.js';
import { runCommand } from './commands.js';
import {
  Backoff,
  BrokerSettingsError,
  clientIdFor,
  clientOptions,
  describeBrokerError,
  type BrokerSettings,
} from './connection.js';
import type { DashboardLocation } from './dashboard-url.js';
import { deviceIdFromMac, fallbackDeviceId } from './device-id.js';
import { haEventPayload } from './events.js';
import type { BridgeMemory, DeviceIdSource } from './memory.js';
import { RetainedMessages } from './retained.js';
import { onlyVolatile, statePayload } from './state-payload.js';
import { isTopicLevel, Topics } from './topics.js';

export interface BridgeTiming {
  /** Changes within this window go out as one state message. */
  coalesceMs: number;
  /** Delay between Home Assistant's `online` and re-sending discovery and states (≤ 30 s). */
  haResendDelayMs: number;
  reconnectMinMs: number;
  /** Ceiling of the reconnect backoff: the MQTT contract promises an attempt at least every 5 s. */
  reconnectMaxMs: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** How long a clean stop waits for `offline` to be acknowledged. */
  stopTimeoutMs: number;
  /** How long a box without any device id waits for the MAC before using the machine id. */
  macWaitMs: number;
}

export const DEFAULT_TIMING: BridgeTiming = {
  coalesceMs: 10,
  haResendDelayMs: 10_000,
  reconnectMinMs: 500,
  reconnectMaxMs: 5000,
  connectTimeoutMs: 5000,
  commandTimeoutMs: 60_000,
  stopTimeoutMs: 2000,
  macWaitMs: 60_000,
};

/** Events kept while the broker is away, newest last; older ones are dropped. */
const MAX_QUEUED_EVENTS = 50;

export interface MqttBridgeOptions {
  device: DeviceState;
  /** The connectivity subsystem's device commands; null when none runs (commands then answer a clear error). */
  commands: DeviceCommands | null;
  broker: BrokerSettings;
  prefix: string;
  /** Home Assistant's discovery prefix; null turns discovery off (and removes an old config). */
  discoveryPrefix: string | null;
  memory: BridgeMemory;
  log: Logger;
  version: string;
  /** Where the dashboard is, for Home Assistant's "Visit" link; null: none shown. */
  dashboard?: DashboardLocation | null;
  /** The machine id, the device id's source when the coprocessor never told the MAC. */
  machineIdPath?: string;
  /** cron schedule that republishes the state with fresh volatile values; 'off' for none. */
  refreshSchedule: string;
  /** Given only when the owner turned on publishing the setup passphrase. */
  setupPassphrase?: (() => string | null) | null;
  reportHealth: (health: ComponentHealth) => void;
  timing?: Partial<BridgeTiming>;
}

export interface BridgeStatus {
  deviceId: string | null;
  connected: boolean;
  /** Connection attempts since start (the first one included). */
  attempts: number;
  lastError: string | null;
  statePublishes: number;
}

export class MqttBridge {
  private readonly timing: BridgeTiming;
  private readonly backoff: Backoff;
  private client: MqttClient | null = null;
  private topics: Topics | null = null;
  private deviceId: string | null = null;
  private deviceIdSource: DeviceIdSource | null = null;
  private macWaitTimer: NodeJS.Timeout | null = null;
  private fallbackStarted = false;
  private readonly retained: RetainedMessages;
  private publishTimer: NodeJS.Timeout | null = null;
  private haResendTimer: NodeJS.Timeout | null = null;
  private readonly refresh: Jobs;
  private readonly queuedEvents: DeviceEvent[] = [];
  private readonly commandsRunning = new Set<string>();
  private stopped = false;
  private switching: Promise<void> = Promise.resolve();
  private attempts = 0;
  private lastError: string | null = null;
  private statePublishes = 0;
  /** Set on CONNACK, cleared on close: tells a lost connection from a failed attempt. */
  private wasConnected = false;

  constructor(private readonly options: MqttBridgeOptions) {
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
    this.backoff = new Backoff(this.timing.reconnectMinMs, this.timing.reconnectMaxMs);
    this.refresh = new Jobs(options.log);
    this.retained = new RetainedMessages({
      device: options.device,
      memory: options.memory,
      log: options.log,
      version: options.version,
      dashboard: options.dashboard ?? null,
      includeSetupPassphrase: Boolean(options.setupPassphrase),
      publish: (client, topic, payload, publishOptions) => this.publish(client, topic, payload, publishOptions),
    });
  }

  private get log(): Logger {
    return this.options.log;
  }

  status(): BridgeStatus {
    return {
      deviceId: this.deviceId,
      connected: this.client?.connected ?? false,
      attempts: this.attempts,
      lastError: this.lastError,
      statePublishes: this.statePublishes,
    };
  }

  /** Never waits for the broker: connecting and retrying happen in the background. */
  async start(): Promise<void> {
    const { device, memory } = this.options;
    device.on('change', this.onChange);
    // What happened before the bridge existed (the first boot's setup_ap_started) goes out first.
    for (const event of device.recentEvents()) this.onEvent(event);
    device.on('event', this.onEvent);
    this.startRefresh();

    const remembered = await memory.deviceId().catch((error) => {
      this.log.warn('could not read the remembered device id', { error });
      return null;
    });
    const source = remembered ? ((await memory.deviceIdSource().catch(() => null)) ?? 'mac') : null;
    if (this.stopped || this.deviceId) return;
    // Without a box no MAC ever comes: the id kept from before (Home Assistant keeps its device) or the machine's.
    if (device.get().connectivity === 'no_device')
      return remembered ? this.useDeviceId(remembered, source ?? 'mac') : this.useFallbackId();
    // An id made without a MAC stays the box's id: Home Assistant keeps one device, not two.
    if (remembered && source === 'machine') return this.useDeviceId(remembered, source);
    const reported = deviceIdFromMac(device.get().wifi.mac);
    if (reported) return this.useDeviceId(reported, 'mac');
    if (remembered) {
      this.log.info(
        'using the station MAC remembered from an earlier start as device id until the coprocessor reports it',
        { device_id: remembered },
      );
      return this.useDeviceId(remembered, 'mac');
    }
    this.log.info('MQTT waits for the station MAC from the coprocessor: it is the device id in every topic');
    this.options.reportHealth({
      status: 'starting',
      detail: 'waiting for the station MAC (the device id) from the coprocessor',
    });
    if (device.get().connectivity === 'device_lost') return this.useFallbackId();
    this.macWaitTimer = setTimeout(() => void this.useFallbackId(), this.timing.macWaitMs);
  }

  /** The coprocessor never told its MAC: the box still appears, under an id of its own. */
  private async useFallbackId(): Promise<void> {
    if (this.fallbackStarted || this.deviceId || this.stopped) return;
    this.fallbackStarted = true;
    const { id, from } = await fallbackDeviceId(this.options.machineIdPath ?? '/etc/machine-id');
    if (this.deviceId || this.stopped) return;
    this.log.info('the coprocessor has not told its MAC: MQTT uses a device id of the box, kept from now on', {
      device_id: id,
      from,
    });
    return this.useDeviceId(id, 'machine');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.macWaitTimer) clearTimeout(this.macWaitTimer);
    this.options.device.off('change', this.onChange);
    this.options.device.off('event', this.onEvent);
    await this.refresh.stop();
    this.clearTimers();
    await this.switching.catch(() => undefined);
    await this.closeClient();
  }

  private readonly onChange = (change: DeviceStateChange): void => {
    if (change.paths.includes('wifi.mac') && this.deviceIdSource !== 'machine') {
      const reported = deviceIdFromMac(change.current.wifi.mac);
      if (reported && reported !== this.deviceId) {
        void this.useDeviceId(reported, 'mac');
        return;
      }
    }
    if (!this.deviceId && change.current.connectivity === 'device_lost') void this.useFallbackId();
    if (!onlyVolatile(change.paths)) this.schedulePublish();
  };

  private readonly onEvent = (event: DeviceEvent): void => {
    if (!isTopicLevel(event.name)) {
      this.log.warn('event not published: its name cannot be a topic level', { event: event.name });
      return;
    }
    if (this.client?.connected) {
      this.publishEvent(event);
      return;
    }
    this.queuedEvents.push(event);
    if (this.queuedEvents.length > MAX_QUEUED_EVENTS) this.queuedEvents.shift();
  };

  /** Connects (or reconnects) under a device id; a new id means a new client id and Last Will. */
  private useDeviceId(deviceId: string, source: DeviceIdSource): Promise<void> {
    if (this.macWaitTimer) clearTimeout(this.macWaitTimer);
    this.macWaitTimer = null;
    this.switching = this.switching.then(async () => {
      if (this.stopped || deviceId === this.deviceId) return;
      const previous = this.deviceId;
      this.deviceId = deviceId;
      this.deviceIdSource = source;
      if (previous)
        this.log.info('the station MAC changed: MQTT moves to the new device id', { from: previous, to: deviceId });
      await this.options.memory
        .rememberDeviceId(deviceId, source)
        .catch((error) => this.log.warn('could not remember the device id', { error }));
      await this.closeClient();
      if (!this.stopped) this.connect(deviceId);
    });
    return this.switching;
  }

  private connect(deviceId: string): void {
    const { broker, prefix, discoveryPrefix } = this.options;
    const topics = new Topics(prefix, deviceId, discoveryPrefix);
    let options;
    try {
      options = clientOptions(
        broker,
        deviceId,
        { topic: topics.availability, payload: 'offline' },
        {
          reconnectMs: this.backoff.reset(),
          connectTimeoutMs: this.timing.connectTimeoutMs,
        },
      );
    } catch (error) {
      if (!(error instanceof BrokerSettingsError)) throw error;
      this.lastError = error.message;
      this.log.error('MQTT cannot start', { reason: error.message });
      this.options.reportHealth({ status: 'degraded', detail: error.message });
      return;
    }
    this.topics = topics;
    this.attempts += 1;
    this.options.reportHealth({ status: 'starting', detail: `connecting to ${withoutUserInfo(broker.url)}` });
    this.log.info('connecting to the MQTT broker', {
      broker: withoutUserInfo(broker.url),
      client_id: clientIdFor(broker, deviceId),
      device_id: deviceId,
    });
    const client = mqtt.connect(broker.url, options);
    this.client = client;
    client.on(
      'connect',
      () =>
        void this.onConnect(client, topics).catch((error) => this.log.error('MQTT connect handling failed', { error })),
    );
    client.on('message', (topic, payload, packet) => this.onMessage(topic, payload, packet.retain));
    client.on('error', (error) => {
      if (client === this.client && !this.stopped) this.onError(error);
    });
    client.on('reconnect', () => {
      this.attempts += 1;
      // mqtt.js reads reconnectPeriod each time it arms its timer: this is the backoff.
      client.options.reconnectPeriod = this.backoff.next();
    });
    client.on('close', () => this.onClose(client));
  }

  private onError(error: Error): void {
    const reason = describeBrokerError(error);
    if (reason !== this.lastError) this.log.warn('MQTT broker problem; retrying', { reason });
    else this.log.debug('MQTT broker problem; retrying', { reason });
    this.lastError = reason;
    this.options.reportHealth({ status: 'degraded', detail: reason });
  }

  private onClose(client: MqttClient): void {
    if (client !== this.client || this.stopped) return;
    if (this.wasConnected) {
      this.wasConnected = false;
      this.lastError = 'lost the connection to the broker; reconnecting';
      this.log.warn('lost the MQTT broker; reconnecting');
      this.options.reportHealth({ status: 'degraded', detail: this.lastError });
    } else if (!this.lastError) {
      this.lastError = 'the broker did not answer';
      this.options.reportHealth({ status: 'degraded', detail: this.lastError });
    }
  }

  private async onConnect(client: MqttClient, topics: Topics): Promise<void> {
    client.options.reconnectPeriod = this.backoff.reset();
    this.wasConnected = true;
    this.lastError = null;
    // Refreshing the state means something only with a broker to send it to.
    this.refresh.start();
    this.log.info('connected to the MQTT broker', { device_id: topics.deviceId, client_id: client.options.clientId });
    // MQTT 5 can tell a retained command apart even when it arrives live ("retain as published").
    const v5 = client.options.protocolVersion === 5;
    const subscriptions: Record<string, { qos: 0 | 1; rap?: boolean }> = {
      [topics.commandFilter]: v5 ? { qos: 1, rap: true } : { qos: 1 },
    };
    if (topics.homeAssistantStatus) subscriptions[topics.homeAssistantStatus] = { qos: 0 };
    client.subscribe(subscriptions, (error) => {
      if (error) this.log.warn('MQTT subscribe failed', { error });
    });

    await this.publish(client, topics.availability, 'online', { retain: true, qos: 1 });
    await this.retained.clearStale(client, topics);
    this.retained.forgetDiscovery();
    await this.retained.publishDiscovery(client, topics);
    await this.publishStateNow();
    for (const event of this.queuedEvents.splice(0)) this.publishEvent(event);
    if (client === this.client && client.connected) {
      this.options.reportHealth({ status: 'ok', detail: `connected as device ${topics.deviceId}` });
    }
  }

  private onMessage(topic: string, payload: Buffer, retained: boolean): void {
    const topics = this.topics;
    if (!topics) return;
    if (topic === topics.homeAssistantStatus) {
      if (payload.toString('utf8').trim() === 'online') this.scheduleHomeAssistantResend();
      return;
    }
    const name = topics.commandName(topic);
    if (name === null) return;
    if (retained) {
      // A retained command would run again on every reconnect ("ghost switching"): refuse it.
      this.log.warn('retained MQTT command ignored', { command: name });
      this.answer(name, {
        ok: false,
        error: 'retained commands are ignored: publish the command without the retain flag',
      });
      return;
    }
    // One of each at a time: five presses of "scan" must not queue five scans on the coprocessor.
    if (this.commandsRunning.has(name)) {
      this.answer(name, { ok: false, error: `${name} is still running; send it again once its result has arrived` });
      return;
    }
    this.commandsRunning.add(name);
    void runCommand(name, payload, { commands: this.options.commands, timeoutMs: this.timing.commandTimeoutMs }).then(
      (result) => {
        this.commandsRunning.delete(name);
        if (result.ok) this.log.info('MQTT command done', { command: name });
        else this.log.info('MQTT command refused or failed', { command: name, reason: result.error });
        this.answer(name, result);
      },
    );
  }

  private answer(name: string, result: unknown): void {
    const client = this.client;
    if (!client?.connected || !this.topics) return;
    void this.publish(client, this.topics.commandResult(name), JSON.stringify(result), { retain: false, qos: 1 });
  }

  /** Home Assistant restarted: after a pause (so it has subscribed), send discovery and states again. */
  private scheduleHomeAssistantResend(): void {
    if (this.haResendTimer) return;
    this.log.debug('Home Assistant is online; discovery and state follow', { delay_ms: this.timing.haResendDelayMs });
    this.haResendTimer = setTimeout(() => {
      this.haResendTimer = null;
      const { client, topics } = this;
      if (!client?.connected || !topics) return;
      void (async () => {
        await this.publish(client, topics.availability, 'online', { retain: true, qos: 1 });
        this.retained.forgetDiscovery();
        await this.publishStateNow();
      })();
    }, this.timing.haResendDelayMs);
  }

  private schedulePublish(): void {
    if (this.publishTimer || this.stopped) return;
    this.publishTimer = setTimeout(() => {
      this.publishTimer = null;
      void this.publishStateNow();
    }, this.timing.coalesceMs);
  }

  /** Publishes the current state; while disconnected it does nothing (connecting republishes). */
  private async publishStateNow(): Promise<void> {
    const { client, topics } = this;
    if (!client?.connected || !topics) return;
    // The config first: an entity the state now needs (a new power-save option) must exist.
    await this.retained.publishDiscovery(client, topics);
    const passphrase = this.options.setupPassphrase?.() ?? null;
    const payload = statePayload(this.options.device.get(), { setupPassphrase: passphrase });
    this.statePublishes += 1;
    await this.publish(client, topics.state, payload, { retain: true, qos: 1 });
  }

  private publishEvent(event: DeviceEvent): void {
    const { client, topics } = this;
    if (!client || !topics) return;
    const payload = JSON.stringify({ ...event.payload, at: event.at });
    void this.publish(client, topics.event(event.name), payload, { retain: false, qos: 1 });
    const entity = haEventPayload(event);
    if (entity !== null && topics.discoveryPrefix !== null)
      void this.publish(client, topics.events, entity, { retain: false, qos: 1 });
  }

  /** The only way volatile values (heartbeat, uptime, signal) reach the broker on their own. */
  private startRefresh(): void {
    this.refresh.add('mqtt-state-refresh', this.options.refreshSchedule, async () => this.publishStateNow());
  }

  /** Resolves when the broker acknowledged (QoS 1) or the message was written (QoS 0); never rejects. */
  private publish(client: MqttClient, topic: string, payload: string, options: IClientPublishOptions): Promise<void> {
    return new Promise((resolve) => {
      client.publish(topic, payload, options, (error) => {
        if (error && !this.stopped) this.log.warn('MQTT publish failed', { topic, error: error.message });
        resolve();
      });
    });
  }

  private clearTimers(): void {
    if (this.publishTimer) clearTimeout(this.publishTimer);
    if (this.haResendTimer) clearTimeout(this.haResendTimer);
    this.publishTimer = this.haResendTimer = null;
  }

  /** A clean goodbye: `offline` (retained) first, because a clean DISCONNECT discards the Will. */
  private async closeClient(): Promise<void> {
    const { client, topics } = this;
    if (!client) return;
    this.client = null;
    this.wasConnected = false;
    if (client.connected && topics) {
      await withDeadline(
        this.publish(client, topics.availability, 'offline', { retain: true, qos: 1 }),
        this.timing.stopTimeoutMs,
      );
      await withDeadline(client.endAsync(), this.timing.stopTimeoutMs).catch(() => undefined);
      if (!client.disconnected) client.end(true);
      this.log.info('disconnected from the MQTT broker (offline published)', { device_id: topics.deviceId });
    } else {
      client.end(true);
    }
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
