/**
 * A coprocessor's initialisation as the runner carries it out (after boot, reset or loss): read
 * its MACs and firmware, re-apply the whole configuration, read where its station and soft AP
 * are, and report the outcome to the machine. What the firmware is and whether its station must
 * stop are the firmware model's to say.
 */
import type { CoprocClientApi } from '../coproc/api.js';
import type { Logger } from '../log/logger.js';
import { tellChipInterfaces, type ChipInterfaces } from './chip-interfaces.js';
import type { ConnectivityClock } from './clock.js';
import type { ConnectivityRecord } from './connectivity-record.js';
import type { CoprocessorRecord } from './coprocessor-record.js';
import { describeDeviceError, logDeviceFailure, type EpochCurrent } from './device-operations.js';
import type { FirmwareGeneration, FirmwareModel } from './firmware-model.js';
import type { MachineInput } from './machine.js';
import type { ConnectivityPolicy } from './policy.js';
import type { RadioSettings } from './radio-settings.js';
import type { SetupApOperations } from './setup-ap-operations.js';
import type { StationOperations } from './station-operations.js';

/**
 * How long a GetFwVersion probe may go unanswered before the firmware counts as the documented one:
 * real time, never time-scaled (an answer takes as long on a fast clock), with room for a busy host.
 */
const FIRMWARE_PROBE_MS = 2000;

export interface DeviceInitOptions {
  client: CoprocClientApi;
  record: ConnectivityRecord;
  coprocessor: CoprocessorRecord;
  policy: ConnectivityPolicy;
  radio: RadioSettings;
  firmware: FirmwareModel;
  station: StationOperations;
  setupAp: SetupApOperations;
  clock: ConnectivityClock;
  log: Logger;
  chipInterfaces?: ChipInterfaces | null;
  /** Told the firmware's version (null: it tells none) and generation at every initialisation. */
  firmwareSeen?: (version: string | null, generation: FirmwareGeneration) => void;
  report: (input: MachineInput) => void;
  isCurrent: EpochCurrent;
}

const INIT_FAILURE = { failed: 'coprocessor initialisation failed', cutShort: 'coprocessor initialisation cut short' };

export async function initialiseDevice(options: DeviceInitOptions, epoch: number): Promise<void> {
  const { client, record, coprocessor, policy, firmware, log } = options;
  try {
    const mac = await client.getMac('station');
    await tellChipInterfaces(client, options.chipInterfaces, mac, log);
    // Silence is the documented firmware's answer.
    const probe = await client.detectFirmware(FIRMWARE_PROBE_MS);
    const at = options.clock.now();
    firmware.observe({ type: 'probed', version: probe.version?.text ?? null, generation: probe.generation, at });
    const generation = firmware.generation ?? probe.generation;
    const identity = firmware.identity();
    coprocessor.identified(identity);
    options.firmwareSeen?.(identity.firmware_version, generation);
    if (generation === 'current' && policy.wifiCountry)
      await client
        .setCountryCode(policy.wifiCountry)
        .catch((error) => log.warn('Wi-Fi country not applied', { error: describeDeviceError(error) }));
    await options.radio.reapply(client);
    let mode = await client.getMode();
    const txPower = await client.getTxPower();
    const powerSave = await client.getPowerSave();
    await client.configHeartbeat(true, policy.heartbeatPeriodS);
    const station = await client.getApConfig();
    firmware.observe({ type: 'stationRead', ssid: station?.ssidBytes ?? null, at: options.clock.now() });
    if (firmware.stopsStationAtInit(station !== null)) mode = await options.station.stopStation(mode);
    const softApUp =
      (mode === 'softap' || mode === 'apsta') &&
      (await client.getSoftApConfig().then(
        () => true,
        () => false,
      ));
    options.setupAp.named(mac);
    coprocessor.initialised({ tx_power_dbm: txPower, power_save: powerSave });
    record.initialised({
      mac,
      mode,
      station: station && { ssid: station.ssid, bssid: station.bssid, rssi: station.rssi, channel: station.channel },
      softAp: softApUp ? options.setupAp.name : null,
    });
    log.info('coprocessor initialised', {
      mac,
      firmware: generation,
      version: identity.firmware_version,
      country: generation === 'current' ? policy.wifiCountry : null,
      mode,
      tx_power_dbm: txPower,
      power_save: powerSave,
      heartbeat_s: policy.heartbeatPeriodS,
    });
    options.report({ type: 'initResult', epoch, ok: true, stationUp: station !== null, softApUp });
  } catch (error) {
    const described = describeDeviceError(error);
    // A chip that boots after the link opened cuts short the first initialisation; another follows.
    logDeviceFailure(log, options.isCurrent(epoch), INIT_FAILURE, { error: described });
    options.report({ type: 'initResult', epoch, ok: false, error: described });
  }
}
