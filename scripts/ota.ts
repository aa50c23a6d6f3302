/** `npm run ota -- FIRMWARE.bin [--device TARGET]`: a coprocessor firmware update with a progress bar. */
import { readFileSync } from 'node:fs';
import { checkImage, OtaError, OtaUpdate, type OtaProgress } from '../daemon/coproc/ota.js';
import { imageReleaseRefusal } from '../daemon/coproc/release.js';
import { fail, parseCliArgs, takeOption } from './lib/args.js';
import { openDevice, resolveTarget } from './lib/device.js';
import { loadCommandConfig } from './lib/config.js';

const USAGE = `Usage: npm run ota -- FIRMWARE.bin [--device TARGET] [--reboot-timeout S] [--config FILE] [--force]

Writes a firmware image to the coprocessor (OTABegin, 4000-byte OTAWrite chunks, OTAEnd) and waits
for it to restart with the new image. The device is --device, else the daemon's setting (coproc in
--config FILE or NESTBOX_CONFIG, or NESTBOX_COPROC).
When the driver's release is set (NESTBOX_ESP_HOSTED_RELEASE), an image of another release is
refused before anything is written: the driver refuses such a firmware and the box loses Wi-Fi.
--force writes it anyway; rebuild the driver for the image's release (scripts/install.sh) then.`;

const BAR_WIDTH = 30;

async function main(argv: string[]): Promise<void> {
  const { positional, options } = parseCliArgs(argv);
  if (options.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (positional.length !== 1) fail(USAGE, 2);
  const config = loadCommandConfig(takeOption(options, 'config'));
  const target = resolveTarget(takeOption(options, 'device'), config);
  const rebootTimeout = Number(takeOption(options, 'reboot-timeout') ?? 60);
  const force = options.force;
  delete options.force;
  if (force !== undefined && force !== true) fail('--force takes no value', 2);
  if (!(rebootTimeout > 0)) fail('--reboot-timeout is a number of seconds', 2);
  const unknown = Object.keys(options);
  if (unknown.length) fail(`unknown option --${unknown[0]}\n\n${USAGE}`, 2);
  let image: Buffer;
  try {
    image = readFileSync(positional[0]);
  } catch (error) {
    fail(`cannot read ${positional[0]}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }

  try {
    checkImage(image);
  } catch (error) {
    fail((error as Error).message);
  }
  const refusal = config.espHostedRelease ? imageReleaseRefusal(image, config.espHostedRelease) : null;
  if (refusal && force !== true) fail(`${refusal}\n(--force writes it anyway)`);
  if (refusal) process.stderr.write(`warning: ${refusal}\n`);
  const { client } = await openDevice(target, config);
  const update = new OtaUpdate(client, { rebootTimeoutMs: rebootTimeout * 1000 });
  update.on('progress', drawProgress);
  try {
    const result = await update.run(image);
    process.stderr.write('\n');
    process.stdout.write(
      `firmware updated: ${result.bytes} bytes in ${result.writeSeconds.toFixed(1)} s (${(result.rate / 1024).toFixed(1)} KiB/s); the coprocessor restarted after ${result.rebootSeconds.toFixed(1)} s\n`,
    );
  } catch (error) {
    process.stderr.write('\n');
    process.stderr.write(`${error instanceof OtaError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    await client.close();
  }
}

let lastKey = '';
function drawProgress(p: OtaProgress): void {
  const filled = Math.round((p.percent / 100) * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
  const line = `${bar} ${String(p.percent).padStart(3)}% ${p.bytes}/${p.total} B ${(p.rate / 1024).toFixed(1)} KiB/s ${p.phase}`;
  if (process.stderr.isTTY) {
    process.stderr.write(`\r${line}`);
    return;
  }
  // Not a terminal: one line per phase and per 10 %.
  const key = `${p.phase}:${Math.floor(p.percent / 10)}`;
  if (key !== lastKey) process.stderr.write(line + '\n');
  lastKey = key;
}

await main(process.argv.slice(2));
