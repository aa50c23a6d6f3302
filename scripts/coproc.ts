/**
 * `npm run coproc -- <operation> [--field value ...] [--device TARGET] [--timeout S]`: one
 * operation against the coprocessor, the response printed as one JSON object; exit 1 when `resp`
 * is not 0. `npm run coproc -- events` prints events as JSON lines until stopped.
 */
import { CoprocError } from '../daemon/coproc/api.js';
import { EVENTS, OPERATIONS, operationByCli } from '../daemon/coproc/operations.js';
import { presentMessage, requestFromOptions, UsageError } from '../daemon/coproc/present.js';
import { fail, parseCliArgs, takeOption } from './lib/args.js';
import { openDevice, resolveTarget } from './lib/device.js';
import { loadCommandConfig } from './lib/config.js';
import type { Config, CoprocTarget } from '../daemon/config.js';

const USAGE = `Usage: npm run coproc -- <operation> [--field value ...] [--device TARGET] [--timeout S] [--config FILE]
       npm run coproc -- events [--device TARGET] [--config FILE]

Runs one operation of the coprocessor control protocol and prints the response as JSON
(protobuf field names; MACs and SSIDs as text, enums by name). Exit code 1 when resp is not 0.
The device is --device, else the daemon's setting (coproc in --config FILE or NESTBOX_CONFIG,
or NESTBOX_COPROC): sim, serial:/dev/PATH[?baud=N] or esps:/dev/PATH.
Options are the request's protobuf field names in kebab case; enum values by name or number;
numbers in the device's units (--wifi-max-tx-power 80 is 80 quarter-dBm); bytes in base64 or
@FILE; a nested message as JSON (--vendor-ie-data '{"element_id":221,...}').

Operations:
${OPERATIONS.map((op) => `  ${op.cli.padEnd(18)} ${op.protocolName} (${op.id})`).join('\n')}
  ${'events'.padEnd(18)} print events until stopped`;

async function main(argv: string[]): Promise<void> {
  const { positional, options } = parseCliArgs(argv);
  if (options.help || positional.length === 0) {
    process.stdout.write(USAGE + '\n');
    if (!options.help) process.exit(2);
    return;
  }
  if (positional.length > 1) fail(`one operation at a time, not ${positional.join(' ')}\n\n${USAGE}`, 2);
  const config = loadCommandConfig(takeOption(options, 'config'));
  const target = resolveTarget(takeOption(options, 'device'), config);
  const timeout = takeOption(options, 'timeout');
  const timeoutMs = timeout === undefined ? undefined : Number(timeout) * 1000;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) fail(`--timeout is a number of seconds, not ${timeout}`, 2);
  const name = positional[0];
  if (name === 'events') return printEvents(target, config);

  const spec = operationByCli(name);
  if (!spec) fail(`unknown operation ${JSON.stringify(name)}\n\n${USAGE}`, 2);
  let request;
  try {
    request = requestFromOptions(spec, options);
  } catch (error) {
    if (error instanceof UsageError) fail(error.message, 2);
    throw error;
  }
  const { client } = await openDevice(target, config);
  try {
    const response = await client.call(spec.name, request, { timeoutMs });
    process.stdout.write(JSON.stringify(presentMessage(spec.responseType, response, spec.enumFields)) + '\n');
    process.exitCode = response.resp === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(`${error instanceof CoprocError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    await client.close();
  }
}

async function printEvents(target: CoprocTarget, config: Config): Promise<void> {
  const print = (line: Record<string, unknown>) => process.stdout.write(JSON.stringify(line) + '\n');
  const { client } = await openDevice(target, config);
  print({ event: 'link', up: client.linkUp });
  client.on('link', ({ up, reason }) => print({ event: 'link', up, ...(reason ? { reason } : {}) }));
  // Re-decode through the table so the output uses protobuf field names, like the operations.
  const spec = Object.fromEntries(EVENTS.map((e) => [e.name, e]));
  client.on('devInit', ({ initData }) =>
    print({ event: spec.devInit.protocolName, ...presentMessage(spec.devInit.type, { init_data: initData }) }),
  );
  client.on('heartbeat', ({ number }) => print({ event: spec.heartbeat.protocolName, hb_num: number }));
  client.on('stationDisconnected', ({ reason, ssid }) =>
    print({ event: spec.stationDisconnected.protocolName, reason, ...(ssid ? { ssid } : {}) }),
  );
  client.on('softApStationDisconnected', ({ mac, reason }) =>
    print({ event: spec.softApStationDisconnected.protocolName, reason, mac }),
  );
  client.on('stationConnected', ({ ssid, bssid, channel, security }) =>
    print({ event: spec.stationConnected.protocolName, ssid, bssid, channel, authmode: security }),
  );
  client.on('softApStationConnected', ({ mac, aid }) =>
    print({ event: spec.softApStationConnected.protocolName, mac, aid }),
  );
  client.on('customRpc', ({ id, data }) =>
    print({ event: spec.customRpc.protocolName, custom_evt_id: id, data: Buffer.from(data).toString('base64') }),
  );
  client.on('dhcpDnsStatus', (status) => print({ event: spec.dhcpDnsStatus.protocolName, ...status }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await client.close();
}

await main(process.argv.slice(2));
