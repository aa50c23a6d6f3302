/**
 * `npm run sim -- --pty [--framing esps|serial] [--time-scale N] [--scenario NAME] [--firmware documented|current] [--baud N] [--link PATH] [--radio-events]`:
 * the simulated coprocessor on a new pseudo-terminal. The first stdout line is `PTY <device path>`;
 * point the daemon at it with NESTBOX_COPROC=serial:<path> (or esps:<path> with --framing esps).
 * Scenario commands are read from stdin, one per line; each answers one JSON line on stdout.
 * With --radio-events, each radio change is one more JSON line (`{"radio": ...}`), so a harness can
 * play the driver's network interfaces: frames pass while associated / while the soft AP is up, and
 * both interfaces are re-created when the chip boots (the driver does that on the chip's init event).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FRAMING_KINDS, type FramingKind } from '../daemon/coproc/framing/index.js';
import { FIRMWARE_GENERATIONS, type FirmwareGeneration } from '../daemon/coproc/operations.js';
import { SIM_SCENARIOS, Simulator, type SimScenario } from '../daemon/coproc/sim/index.js';
import { openPtyBridge } from '../daemon/coproc/sim/pty.js';
import { fail, parseCliArgs, takeOption } from './lib/args.js';

const USAGE = `Usage: npm run sim -- --pty [--framing esps|serial] [--time-scale N] [--scenario NAME] [--firmware documented|current] [--baud N] [--link PATH] [--radio-events]

Runs the simulated ESP-Hosted coprocessor on a new pseudo-terminal (made with socat) and prints
"PTY <device path>" as its first line. --framing serial (default) carries the TLV frames in
esp_payload_header frames (NESTBOX_COPROC=serial:<path>); esps is the bare TLV stream of
/dev/esps0 (NESTBOX_COPROC=esps:<path>). --time-scale runs the device's clocks N times faster;
--baud limits the line to a UART's speed; --link chooses the device path. --radio-events adds a
JSON line per radio change: {"radio":"station","associated":true|false,...},
{"radio":"softap","active":true|false,...}, {"radio":"softap_station","joined":true|false,"mac":...},
{"radio":"chip","booted":false,"reason":...} when it goes down and {"radio":"chip","booted":true,
"macs":{"sta":...,"ap":...}} when it has booted and announced itself.
Scenarios: ${SIM_SCENARIOS.join(', ')}.

Commands on stdin (one JSON line answers each):
  vanish SSID | restore SSID | passphrase SSID NEW | rssi SSID DBM | kick [REASON]
  heartbeats on|off | freeze on|off | reset | garbage [BYTES] | join [MAC] | leave MAC | status`;

async function main(argv: string[]): Promise<void> {
  const { positional, options } = parseCliArgs(argv);
  if (options.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (options.pty !== true || positional.length) fail(USAGE, 2);
  delete options.pty;
  const framing = (takeOption(options, 'framing') ?? 'serial') as FramingKind;
  if (!FRAMING_KINDS.includes(framing)) fail(`--framing is esps or serial, not ${framing}`, 2);
  const timeScale = Number(takeOption(options, 'time-scale') ?? 1);
  if (!(timeScale > 0)) fail('--time-scale is a positive number', 2);
  const scenario = (takeOption(options, 'scenario') ?? 'default') as SimScenario;
  if (!SIM_SCENARIOS.includes(scenario)) fail(`--scenario is one of ${SIM_SCENARIOS.join(', ')}`, 2);
  const firmware = (takeOption(options, 'firmware') ?? 'documented') as FirmwareGeneration;
  if (!FIRMWARE_GENERATIONS.includes(firmware)) fail(`--firmware is documented or current, not ${firmware}`, 2);
  const baudText = takeOption(options, 'baud');
  const baud = baudText === undefined ? undefined : Number(baudText);
  if (baud !== undefined && !(baud >= 300)) fail('--baud is a line speed such as 921600', 2);
  const dir = mkdtempSync(join(tmpdir(), 'nestbox-sim-'));
  const linkPath = takeOption(options, 'link') ?? join(dir, 'coproc');
  const radioEvents = options['radio-events'];
  delete options['radio-events'];
  if (radioEvents !== undefined && radioEvents !== true) fail('--radio-events takes no value', 2);
  const unknown = Object.keys(options);
  if (unknown.length) fail(`unknown option --${unknown[0]}\n\n${USAGE}`, 2);

  const sim = new Simulator({ framing, timeScale, scenario, firmware, baud, otaPath: join(dir, 'ota.bin') });
  let bridge;
  try {
    bridge = await openPtyBridge(linkPath);
  } catch (error) {
    fail((error as Error).message);
  }
  bridge.onData((chunk) => sim.receive(chunk));
  sim.attach((bytes) => bridge.write(bytes));
  process.stdout.write(`PTY ${bridge.path}\n`);
  if (radioEvents === true) {
    const print = (line: object) => process.stdout.write(JSON.stringify(line) + '\n');
    sim.device.on('radio', print);
    sim.device.on('reset', (reason) => print({ radio: 'chip', booted: false, reason }));
    // After the link's announcement (registered first): the driver acts on the init event it carries.
    sim.device.on('boot', () => print({ radio: 'chip', booted: true, macs: sim.device.snapshot().macs }));
  }
  sim.powerOn();

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    sim.close();
    await bridge.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  void bridge.exited.then(() => {
    if (stopping) return;
    process.stderr.write('socat exited: the pseudo-terminal is gone\n');
    void stop(1);
  });

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const words = line.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) return;
    let answer: Record<string, unknown>;
    try {
      answer = { ok: true, command: words[0], ...runCommand(sim, words) };
    } catch (error) {
      answer = { ok: false, command: words[0], error: (error as Error).message };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  });
}

function runCommand(sim: Simulator, [command, ...args]: string[]): Record<string, unknown> {
  const arg = (i: number, what: string) => {
    const value = args[i];
    if (value === undefined) throw new Error(`${command} needs ${what}`);
    return value;
  };
  const onOff = () => {
    const value = arg(0, 'on or off');
    if (value !== 'on' && value !== 'off') throw new Error(`${command} takes on or off`);
    return value === 'on';
  };
  switch (command) {
    case 'vanish':
      sim.vanishNetwork(arg(0, 'an SSID'));
      return {};
    case 'restore':
      sim.restoreNetwork(arg(0, 'an SSID'));
      return {};
    case 'passphrase':
      sim.setPassphrase(arg(0, 'an SSID'), arg(1, 'a passphrase'));
      return {};
    case 'rssi':
      sim.setRssi(arg(0, 'an SSID'), Number(arg(1, 'a signal level in dBm')));
      return {};
    case 'kick':
      return { kicked: sim.kickStation(args[0] ? Number(args[0]) : undefined) };
    case 'heartbeats':
      sim.setHeartbeats(onOff());
      return {};
    case 'freeze':
      sim.freeze(onOff());
      return {};
    case 'reset':
      sim.reset();
      return {};
    case 'garbage':
      sim.injectGarbage(args[0] ? Number(args[0]) : 64);
      return {};
    case 'join':
      return { mac: sim.joinSoftAp(args[0] ? { mac: args[0] } : {}) };
    case 'leave':
      return { left: sim.leaveSoftAp(arg(0, 'a MAC')) };
    case 'status':
      return { status: sim.snapshot() };
    default:
      throw new Error(`unknown command ${command}`);
  }
}

await main(process.argv.slice(2));
