/**
 * What the bridge keeps retained on the broker beyond state and availability: Home Assistant's
 * discovery config, sent again only when it changes (or after a reconnect, or Home Assistant's
 * restart), and the clean-up of what an earlier identity (device id, prefix, discovery prefix)
 * left retained, so that Home Assistant never shows a second, dead device.
 */
import type { IClientPublishOptions, MqttClient } from 'mqtt';
import type { DeviceState } from '../device/state.js';
import type { Logger } from '../log/logger.js';
import { dashboardUrl, type DashboardLocation } from './dashboard-url.js';
import { discoveryPayload } from './discovery.js';
import type { BridgeMemory, RetainedIdentity } from './memory.js';
import { discoveryConfigTopic, Topics } from './topics.js';

/** Publishes and resolves when the broker acknowledged (QoS 1) or the message was written; never rejects. */
export type Publish = (
  client: MqttClient,
  topic: string,
  payload: string,
  options: IClientPublishOptions,
) => Promise<void>;

export interface RetainedMessagesOptions {
  device: DeviceState;
  memory: BridgeMemory;
  log: Logger;
  version: string;
  dashboard: DashboardLocation | null;
  /** The owner turned on publishing the setup passphrase: discovery offers its entity. */
  includeSetupPassphrase: boolean;
  publish: Publish;
}

export class RetainedMessages {
  /** The discovery config last sent on this connection; a different one is sent again. */
  private lastDiscovery: string | null = null;

  constructor(private readonly options: RetainedMessagesOptions) {}

  /** A new connection, or Home Assistant back: the next publishDiscovery sends the config whatever it was. */
  forgetDiscovery(): void {
    this.lastDiscovery = null;
  }

  /** Sends the discovery config when it differs from the one sent last on this connection. */
  async publishDiscovery(client: MqttClient, topics: Topics): Promise<void> {
    if (!topics.discoveryConfig) return;
    const { device, dashboard, version, includeSetupPassphrase } = this.options;
    const state = device.get();
    const payload = JSON.stringify(
      discoveryPayload({
        topics,
        version,
        device: state,
        configurationUrl: dashboard ? dashboardUrl(dashboard, state) : null,
        includeSetupPassphrase,
      }),
    );
    if (payload === this.lastDiscovery) return;
    this.lastDiscovery = payload;
    await this.options.publish(client, topics.discoveryConfig, payload, { retain: true, qos: 1 });
  }

  /** Removes what an earlier identity (device id, prefix, discovery prefix) left retained. */
  async clearStale(client: MqttClient, topics: Topics): Promise<void> {
    const { memory, log, publish } = this.options;
    const current: RetainedIdentity = {
      prefix: topics.prefix,
      deviceId: topics.deviceId,
      discoveryPrefix: topics.discoveryPrefix,
    };
    const before = await memory.retained().catch(() => null);
    if (before) {
      const sameBase = before.prefix === current.prefix && before.deviceId === current.deviceId;
      if (
        before.discoveryPrefix &&
        (before.discoveryPrefix !== current.discoveryPrefix || before.deviceId !== current.deviceId)
      ) {
        log.info('removing the old Home Assistant discovery config', {
          discovery_prefix: before.discoveryPrefix,
          device_id: before.deviceId,
        });
        await publish(client, discoveryConfigTopic(before.discoveryPrefix, before.deviceId), '', {
          retain: true,
          qos: 1,
        });
      }
      if (!sameBase) {
        const old = new Topics(before.prefix, before.deviceId, null);
        log.info('removing retained messages of the old device id or prefix', { base: old.base });
        await publish(client, old.state, '', { retain: true, qos: 1 });
        await publish(client, old.availability, '', { retain: true, qos: 1 });
      }
    }
    await memory
      .rememberRetained(current)
      .catch((error) => log.warn('could not remember the retained topics', { error }));
  }
}
