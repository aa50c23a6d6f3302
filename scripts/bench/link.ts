/**
 * `npm run bench -- link`: request round trip over a real pseudo-terminal (the simulator in its own
 * process, as a device would be), and OTA throughput for a 1.5 MB image, unthrottled and with the
 * simulator's line throttled to 921600 baud (reported as a fraction of the line rate).
 */
import type { Bench } from './index.js';
import { randomBytes } from 'node:crypto';
import type { CoprocTarget } from '../../daemon/config.js';
import type { FramingKind } from '../../daemon/coproc/framing/index.js';
import { openCoprocLink, waitForLink } from '../../daemon/coproc/link.js';
import { OtaUpdate } from '../../daemon/coproc/ota.js';
import { silentLogger } from '../../daemon/log/logger.js';
import { percentile, report, type Figure } from '../lib/report.js';
import { startSimProcess } from '../lib/sim-process.js';

const RTT_WARMUP = 300;
const RTT_SAMPLES = 3000;
const IMAGE_BYTES = 1_500_000;
const LINE_BAUD = 921_600;
/** 8N1: ten bits on the line per byte. */
const LINE_BYTES_PER_S = LINE_BAUD / 10;

async function withLink<T>(
  framing: FramingKind,
  simArgs: string[],
  body: (client: ReturnType<typeof openCoprocLink>['client']) => Promise<T>,
): Promise<T> {
  const sim = await startSimProcess(['--framing', framing, ...simArgs]);
  const target: CoprocTarget =
    framing === 'serial' ? { kind: 'serial', path: sim.path, baud: LINE_BAUD } : { kind: 'esps', path: sim.path };
  const { client } = openCoprocLink(target, { log: silentLogger });
  try {
    await waitForLink(client, 5000);
    await untilAnswering(client);
    return await body(client);
  } finally {
    await client.close();
    await sim.stop();
  }
}

/** The simulator may still be booting (a request it gets then is never answered): ask until it answers. */
async function untilAnswering(client: ReturnType<typeof openCoprocLink>['client']): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      await client.call('getMode', {}, { timeoutMs: 250 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

async function roundTrips(framing: FramingKind): Promise<number[]> {
  return withLink(framing, ['--time-scale', '100'], async (client) => {
    for (let i = 0; i < RTT_WARMUP; i++) await client.getMode();
    const samples: number[] = [];
    for (let i = 0; i < RTT_SAMPLES; i++) {
      const start = performance.now();
      await client.getMode();
      samples.push(performance.now() - start);
    }
    return samples.sort((a, b) => a - b);
  });
}

async function otaRate(simArgs: string[]): Promise<number> {
  const image = Buffer.concat([Buffer.from([0xe9]), randomBytes(IMAGE_BYTES - 1)]);
  return withLink(
    'serial',
    ['--time-scale', '100', ...simArgs],
    async (client) => (await new OtaUpdate(client, { rebootTimeoutMs: 10_000 }).run(image)).rate,
  );
}

export const bench: Bench = {
  description: 'request round trip over a real PTY, OTA throughput unthrottled and at 921600 baud',
  run,
};

async function run(): Promise<void> {
  const figures: Figure[] = [];
  for (const framing of ['serial', 'esps'] as const) {
    const samples = await roundTrips(framing);
    const prefix = framing === 'serial' ? 'rtt' : 'rtt_esps';
    figures.push({ metric: `${prefix}_p50_ms`, value: percentile(samples, 50), unit: 'ms', samples: samples.length });
    figures.push({ metric: `${prefix}_p99_ms`, value: percentile(samples, 99), unit: 'ms', samples: samples.length });
  }
  const unthrottled = await otaRate([]);
  figures.push({ metric: 'ota_unthrottled_kib_s', value: unthrottled / 1024, unit: 'KiB/s', bytes: IMAGE_BYTES });
  figures.push({
    metric: 'ota_unthrottled_line_fraction',
    value: unthrottled / LINE_BYTES_PER_S,
    unit: `of ${LINE_BYTES_PER_S} B/s (921600 baud)`,
    bytes: IMAGE_BYTES,
  });
  const throttled = await otaRate(['--baud', String(LINE_BAUD)]);
  figures.push({ metric: 'ota_921600_kib_s', value: throttled / 1024, unit: 'KiB/s', bytes: IMAGE_BYTES });
  figures.push({
    metric: 'ota_921600_line_fraction',
    value: throttled / LINE_BYTES_PER_S,
    unit: `of ${LINE_BYTES_PER_S} B/s`,
    bytes: IMAGE_BYTES,
  });
  report('link', figures);
}
