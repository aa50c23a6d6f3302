/**
 * The command-line contract: `npm run sim -- --pty` prints `PTY <path>` first and takes scenario
 * commands on stdin; `npm run coproc` prints one JSON response and exits 1 when resp ≠ 0;
 * `npm run ota` updates with a progress bar. The compiled scripts are run as the npm scripts run them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DIST, REPO_ROOT, tempDir } from '../helpers/paths.js';

const script = (name: string) => join(DIST, 'bundle', `${name}.js`);
const dir = tempDir('nestbox-cli-test-');

function run(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script(name), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface RunningSim {
  child: ChildProcessWithoutNullStreams;
  path: string;
  lines: string[];
  command(line: string): Promise<Record<string, unknown>>;
}

async function startSim(args: string[]): Promise<RunningSim> {
  const child = spawn(process.execPath, [script('sim'), '--pty', ...args], { cwd: REPO_ROOT });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    waiters.shift()?.(line);
  });
  const nextLine = () => new Promise<string>((resolve) => waiters.push(resolve));
  const first = await nextLine();
  assert.match(first, /^PTY \//);
  return {
    child,
    path: first.slice(4),
    lines,
    async command(line) {
      const answer = nextLine();
      child.stdin.write(line + '\n');
      return JSON.parse(await answer);
    },
  };
}

let sim: RunningSim;

test.before(async () => {
  sim = await startSim(['--framing', 'serial', '--time-scale', '20']);
});

test.after(() => {
  sim.child.kill('SIGTERM');
  dir.remove();
});

test('coproc: one operation, its response as JSON with protobuf field names, exit 0', async () => {
  const { code, stdout } = await run('coproc', ['get-mac', '--mode', 'STA', '--device', `serial:${sim.path}`]);
  assert.is(code, 0);
  assert.equal(JSON.parse(stdout), { mac: '24:0a:c4:12:34:56', resp: 0 });
});

test('coproc: NESTBOX_COPROC names the device; resp ≠ 0 exits 1 with resp in the output', async () => {
  const { code, stdout } = await run('coproc', ['set-max-tx-power', '--wifi-max-tx-power', '90'], {
    NESTBOX_COPROC: `serial:${sim.path}`,
  });
  assert.is(code, 1);
  assert.equal(JSON.parse(stdout), { resp: 5 });
});

test('coproc and ota read the daemon’s settings: --config FILE or NESTBOX_CONFIG, refused like the daemon (exit 2)', async () => {
  const settings = join(dir.path, 'nestbox.json');
  writeFileSync(settings, JSON.stringify({ coproc: `serial:${sim.path}`, log_level: 'warn' }));
  const unknownKey = join(dir.path, 'typo.json');
  writeFileSync(unknownKey, JSON.stringify({ coprc: 'sim' }));
  const image = join(dir.path, 'config-firmware.bin');
  writeFileSync(image, Buffer.concat([Buffer.from([0xe9]), Buffer.alloc(100, 7)]));
  // The runs that never reach the simulator go side by side with those that do (one at a time on
  // its port); the missing port is waited for the command's whole open timeout.
  const apart = Promise.all([
    // The environment wins over the file, as for the daemon.
    run('coproc', ['get-mac', '--mode', 'STA', '--config', settings], {
      NESTBOX_COPROC: 'serial:/dev/nestbox-no-such-port',
    }),
    run('coproc', ['get-mac', '--mode', 'STA', '--config', unknownKey]),
    run('coproc', ['get-mac', '--mode', 'STA'], { NESTBOX_COPROC: 'usb:/dev/x' }),
    run('ota', [image], { NESTBOX_CONFIG: settings, NESTBOX_HEARTBEAT_S: 'often' }),
  ]);
  const viaOption = await run('coproc', ['get-mac', '--mode', 'STA', '--config', settings]);
  assert.is(viaOption.code, 0, viaOption.stderr);
  assert.equal(JSON.parse(viaOption.stdout), { mac: '24:0a:c4:12:34:56', resp: 0 });
  const viaVariable = await run('coproc', ['get-mac', '--mode', 'STA'], { NESTBOX_CONFIG: settings });
  assert.is(viaVariable.code, 0, viaVariable.stderr);

  const [overridden, typo, badValue, otaBad] = await apart;
  assert.is(overridden.code, 1);
  assert.match(overridden.stderr, 'nestbox-no-such-port');
  assert.is(typo.code, 2);
  assert.match(typo.stderr, /^config: coprc="sim" \(.*typo\.json\) is not allowed: a known setting/);
  assert.is(badValue.code, 2);
  assert.match(badValue.stderr, /^config: NESTBOX_COPROC="usb:\/dev\/x" \(environment\) is not allowed/);
  assert.is(otaBad.code, 2);
  assert.match(otaBad.stderr, /^config: NESTBOX_HEARTBEAT_S="often" \(environment\)/);
});

test('coproc: enums by name in and out, SSIDs as text', async () => {
  const device = `serial:${sim.path}`;
  const started = await run('coproc', [
    'start-softap',
    '--ssid',
    'Nestbox-Setup',
    '--pwd',
    'setup-pass-1',
    '--chnl',
    '6',
    '--sec-prot',
    'WPA2_PSK',
    '--max-conn',
    '4',
    '--bw',
    'HT40',
    '--device',
    device,
  ]);
  assert.equal(JSON.parse(started.stdout), { resp: 0, mac: '24:0a:c4:12:34:57', band_mode: 0 });
  const { stdout } = await run('coproc', ['get-softap-config', '--device', device]);
  assert.equal(JSON.parse(stdout), {
    ssid: 'Nestbox-Setup',
    pwd: 'setup-pass-1',
    chnl: 6,
    sec_prot: 'WPA2_PSK',
    max_conn: 4,
    ssid_hidden: false,
    bw: 'HT40',
    resp: 0,
    band_mode: 0,
  });
});

test("coproc: the current firmware's operations against `sim --firmware current`; the documented firmware does not answer them", async () => {
  const current = await startSim(['--framing', 'serial', '--time-scale', '20', '--firmware', 'current']);
  try {
    const device = `serial:${current.path}`;
    const version = await run('coproc', ['get-fw-version', '--device', device]);
    assert.is(version.code, 0);
    assert.equal(JSON.parse(version.stdout), {
      resp: 0,
      name: 'FG',
      major1: 1,
      major2: 0,
      minor: 0,
      rev_patch1: 0,
      rev_patch2: 0,
    });
    assert.is((await run('coproc', ['set-country-code', '--country', 'DE', '--device', device])).code, 0);
    const country = await run('coproc', ['get-country-code', '--device', device]);
    assert.equal(JSON.parse(country.stdout), { resp: 0, country: 'DE' });
    const refused = await run('coproc', ['set-country-code', '--country', 'D3', '--device', device]);
    assert.equal([refused.code, JSON.parse(refused.stdout).resp], [1, 0x102]);
    const feature = ['enable-disable', '--feature', 'Hosted_Bluetooth', '--enable', 'true', '--device', device];
    assert.equal(JSON.parse((await run('coproc', feature)).stdout), { resp: 0 });
  } finally {
    current.child.kill('SIGTERM');
  }
  const silent = await run('coproc', ['get-fw-version', '--timeout', '0.5', '--device', `serial:${sim.path}`]);
  assert.is(silent.code, 1);
  assert.match(silent.stderr, /GetFwVersion: no answer from the coprocessor within 0.5 s/);
});

test('sim: scenario commands on stdin answer one JSON line; a vanished network is gone from the scan', async () => {
  assert.equal(await sim.command('vanish HomeNet'), { ok: true, command: 'vanish' });
  assert.equal(await sim.command('bogus'), { ok: false, command: 'bogus', error: 'unknown command bogus' });
  const { stdout } = await run('coproc', ['scan', '--device', `serial:${sim.path}`]);
  const scan = JSON.parse(stdout);
  assert.is(scan.resp, 0);
  assert.is(scan.count, 4);
  assert.not.ok(scan.entries.some((e: { ssid: string }) => e.ssid === 'HomeNet'));
  await sim.command('restore HomeNet');
});

test('usage errors exit 2 (coproc) or 1 (ota, not an image) and say what is wrong, before touching the device', async () => {
  const bad = join(dir.path, 'not-firmware.bin');
  writeFileSync(bad, 'hello');
  const device = `serial:${sim.path}`;
  const [unknown, badOption, help, refused] = await Promise.all([
    run('coproc', ['fly-to-moon', '--device', device]),
    run('coproc', ['get-mode', '--colour', 'red', '--device', device]),
    run('coproc', ['--help']),
    run('ota', [bad, '--device', device]),
  ]);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown operation "fly-to-moon"/);
  assert.is(badOption.code, 2);
  assert.match(badOption.stderr, /no option --colour/);
  assert.is(help.code, 0);
  assert.match(help.stdout, /config-heartbeat/);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /not an ESP firmware image/);
});

test('NESTBOX_COPROC=none names no device: the tools ask for --device (exit 2), and use one given', async () => {
  const [coproc, ota, given] = await Promise.all([
    run('coproc', ['get-mode'], { NESTBOX_COPROC: 'none' }),
    run('ota', [join(dir.path, 'any.bin')], { NESTBOX_COPROC: 'none' }),
    run('coproc', ['get-mode', '--device', `serial:${sim.path}`], { NESTBOX_COPROC: 'none' }),
  ]);
  for (const refused of [coproc, ota]) {
    assert.is(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /NESTBOX_COPROC is none: name a device with --device/);
  }
  assert.is(given.code, 0, given.stderr);
  assert.is(JSON.parse(given.stdout).resp, 0);
});

test('ota: the image is written with progress and the command waits for the restart', async () => {
  const image = join(dir.path, 'firmware.bin');
  writeFileSync(image, Buffer.concat([Buffer.from([0xe9]), Buffer.alloc(9000, 7)]));
  const { code, stdout, stderr } = await run('ota', [image, '--device', `serial:${sim.path}`]);
  assert.is(code, 0, stderr);
  assert.match(stdout, /firmware updated: 9001 bytes/);
  assert.match(stderr, /100% 9001\/9001 B/);
});

test('coproc and ota with NESTBOX_DATABASE_URL: the setting is checked as the daemon checks it, the SQLite file never made', async () => {
  const data = tempDir('nestbox-cli-data-');
  try {
    // No server there: the commands talk to the coprocessor only and never open the database.
    const env = {
      NESTBOX_DATA_DIR: data.path,
      NESTBOX_DATABASE_URL: `postgres://nestbox@localhost/nestbox?host=${encodeURIComponent(data.path)}`,
    };
    const mac = await run('coproc', ['get-mac', '--mode', 'STA', '--device', `serial:${sim.path}`], env);
    assert.is(mac.code, 0, mac.stderr);
    const image = join(dir.path, 'database-url-firmware.bin');
    writeFileSync(image, Buffer.concat([Buffer.from([0xe9]), Buffer.alloc(2000, 7)]));
    const ota = await run('ota', [image, '--device', `serial:${sim.path}`], env);
    assert.is(ota.code, 0, ota.stderr);
    assert.equal(readdirSync(data.path), [], 'nothing made in the data folder');
    const bad = await run('coproc', ['get-mac', '--mode', 'STA', '--device', `serial:${sim.path}`], {
      ...env,
      NESTBOX_DATABASE_URL: 'mysql://owner:hunter22@db/nestbox',
    });
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /^config: NESTBOX_DATABASE_URL=/);
    assert.not.match(bad.stderr, /hunter22/);
    assert.equal(readdirSync(data.path), []);
  } finally {
    data.remove();
  }
});

test('coproc events: prints events as JSON lines until stopped', async () => {
  const child = spawn(process.execPath, [script('coproc'), 'events', '--device', `serial:${sim.path}`], {
    cwd: REPO_ROOT,
  });
  const lines: string[] = [];
  const seen = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.includes('Event_DevInit')) resolve();
    });
  });
  while (!lines.length) await new Promise((resolve) => setTimeout(resolve, 10));
  await sim.command('reset');
  await seen;
  child.kill('SIGINT');
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.is(code, 0);
  assert.equal(JSON.parse(lines[0]), { event: 'link', up: true });
  assert.ok(
    lines.some(
      (line) => JSON.stringify(JSON.parse(line)) === JSON.stringify({ event: 'Event_DevInit', init_data: '' }),
    ),
  );
});

test.run();
