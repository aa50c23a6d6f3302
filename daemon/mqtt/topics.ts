/**
 * Every MQTT topic the bridge publishes or subscribes to, built in this one place (as Zigbee2MQTT
 * does): `<prefix>/<device_id>/…` for the box, `<discovery prefix>/…` for Home Assistant.
 */
export const COMMAND_NAMES = [
  'scan',
  'setup_mode',
  'tx_power',
  'power_save',
  'restart_coprocessor',
  'install_firmware',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** One topic level we generate ourselves (event names): no wildcards, no separators. */
const TOPIC_LEVEL = /^[A-Za-z0-9_-]{1,64}$/;

export function isTopicLevel(text: string): boolean {
  return TOPIC_LEVEL.test(text);
}

export class Topics {
  /** `<prefix>/<device_id>`: the base of every topic of this box. */
  readonly base: string;

  constructor(
    readonly prefix: string,
    readonly deviceId: string,
    /** Home Assistant's discovery prefix; null when discovery is off. */
    readonly discoveryPrefix: string | null,
  ) {
    this.base = `${prefix}/${deviceId}`;
  }

  get availability(): string {
    return `${this.base}/availability`;
  }
  get state(): string {
    return `${this.base}/state`;
  }

  event(name: string): string {
    return `${this.base}/event/${name}`;
  }
  /** Every event of Home Assistant's event entity on one topic (`event_type` in the payload). */
  get events(): string {
    return `${this.base}/events`;
  }

  command(name: string): string {
    return `${this.base}/command/${name}`;
  }
  commandResult(name: string): string {
    return `${this.base}/command/${name}/result`;
  }
  /** One level only, so our own `…/command/<name>/result` messages never come back to us. */
  get commandFilter(): string {
    return `${this.base}/command/+`;
  }

  /** The command name of a topic that matched `commandFilter`, or null. */
  commandName(topic: string): string | null {
    const head = `${this.base}/command/`;
    if (!topic.startsWith(head)) return null;
    const name = topic.slice(head.length);
    return name && !name.includes('/') ? name : null;
  }

  /** `<discovery prefix>/device/<device_id>/config` (Home Assistant device-based discovery). */
  get discoveryConfig(): string | null {
    return this.discoveryPrefix === null ? null : discoveryConfigTopic(this.discoveryPrefix, this.deviceId);
  }

  /** Where Home Assistant announces its birth (`online`) and will (`offline`). */
  get homeAssistantStatus(): string | null {
    return this.discoveryPrefix === null ? null : `${this.discoveryPrefix}/status`;
  }
}

export function discoveryConfigTopic(discoveryPrefix: string, deviceId: string): string {
  return `${discoveryPrefix}/device/${deviceId}/config`;
}

/** The state topic of any device id, for clearing what a previous device id left retained. */
export function stateTopicOf(prefix: string, deviceId: string): string {
  return new Topics(prefix, deviceId, null).state;
}
