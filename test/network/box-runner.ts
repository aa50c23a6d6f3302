/**
 * The network layer alone, run inside a test's box namespace: the test drives it with one JSON
 * command per stdin line (the chip's MACs, station associated/released/renew, soft AP on/off, stop) and reads one
 * JSON line per happening on stdout (lease events, DeviceState.network, health, log lines).
 * Usage: node box-runner.js '{"env":{NESTBOX_...},"tools":{...}}'
 */
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../daemon/config.js';
import { DeviceState, initialDeviceState } from '../../daemon/device/state.js';
import { Logger } from '../../daemon/log/logger.js';
import { NetworkLayer, type NetworkTools } from '../../daemon/network/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as { env?: Record<string, string>; tools?: Partial<NetworkTools> };
const out = (message: Record<string, unknown>) => process.stdout.write(JSON.stringify(message) + '\n');
const config = loadConfig({ env: { NESTBOX_NETWORK: 'on', ...options.env } });
const device = new DeviceState(initialDeviceState('test', 'sim'));
const log = new Logger('debug', {}, (line) => out({ log: JSON.parse(line) }));

const layer = new NetworkLayer({
  config,
  device,
  log,
  title: 'Nestbox test',
  tools: options.tools,
  health: (health) => out({ health }),
  // Stands in for the daemon's HttpServer.listenAlso: answers with the path it was asked for.
  async listen(host, port) {
    const server = createServer((req, res) => res.end(`portal ${req.url}`));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    return {
      stop: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  },
});
device.on('change', ({ paths }) => out({ paths, network: device.get().network }));
layer.station.on('lease', (lease) => out({ lease }));
layer.start();

async function obey(line: string): Promise<void> {
  const command = JSON.parse(line) as { do: string; mac?: string; active?: boolean; softap?: string | null };
  switch (command.do) {
    case 'chip':
      layer.chipInitialised({ station: command.mac ?? '', softap: command.softap ?? null });
      break;
    case 'associated':
      layer.station.associated(command.mac ?? null);
      break;
    case 'released':
      layer.station.released();
      break;
    case 'renew':
      out({ renewed: layer.station.renew() });
      break;
    case 'softap':
      device.update({ softap: { active: Boolean(command.active) } });
      break;
    case 'stop':
      await layer.stop();
      out({ stopped: true });
      process.exit(0);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  obey(line).catch((error: Error) => {
    out({ failed: error.message });
    process.exit(1);
  });
});
out({ ready: true });
