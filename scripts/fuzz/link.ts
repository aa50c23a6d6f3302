/**
 * `npm run fuzz -- link`: random and mutated frames in both directions of the link, both framings:
 * towards the host (the client's framing, codec and dispatch) and towards the device (the
 * simulator's). Bounded in count and time. Passes when nothing crashed and the link still answers.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { CoprocClient } from '../../daemon/coproc/client.js';
import { encodeCtrlMsg } from '../../daemon/coproc/codec.js';
import type { FramingKind } from '../../daemon/coproc/framing/index.js';
import { fragment } from '../../daemon/coproc/framing/payload-header.js';
import { encodeTlv } from '../../daemon/coproc/framing/tlv.js';
import { EVENTS, OPERATIONS } from '../../daemon/coproc/operations.js';
import { loadSchema } from '../../daemon/coproc/schema.js';
import { Simulator } from '../../daemon/coproc/sim/index.js';
import { SimTransport } from '../../daemon/coproc/transport/memory.js';
import { waitForLink } from '../../daemon/coproc/link.js';
import { silentLogger } from '../../daemon/log/logger.js';
import { parseCliArgs, fail } from '../lib/args.js';
import { report, type Figure } from '../lib/report.js';
import { bytes, int, mutate, pick, randomBody, rng, type Random } from './mutate.js';

const BATCH = 400;

/** A valid serialized CtrlMsg as the device (toHost) or the host would send it, sometimes from newer firmware. */
function randomMessage(random: Random, toHost: boolean): { endpoint: 'ctrlResp' | 'ctrlEvnt'; pb: Buffer } {
  const { wire } = loadSchema();
  const op = pick(random, OPERATIONS);
  if (!toHost)
    return {
      endpoint: 'ctrlResp',
      pb: Buffer.from(
        encodeCtrlMsg(
          int(random, 4),
          op.id,
          random() < 0.95 ? op.requestField : null,
          randomBody(wire.lookupType(op.requestType), random),
        ),
      ),
    };
  if (random() < 0.4) {
    const event = pick(random, EVENTS);
    return {
      endpoint: 'ctrlEvnt',
      pb: Buffer.from(
        encodeCtrlMsg(
          3,
          random() < 0.9 ? event.id : 305 + int(random, 5),
          event.field,
          randomBody(wire.lookupType(event.type), random),
        ),
      ),
    };
  }
  return {
    endpoint: 'ctrlResp',
    pb: Buffer.from(
      encodeCtrlMsg(
        2,
        random() < 0.9 ? op.id + 100 : 222 + int(random, 8),
        op.responseField,
        randomBody(wire.lookupType(op.responseType), random),
      ),
    ),
  };
}

/** A frame damaged at the framing level, or well framed around a damaged protobuf. */
function fuzzFrame(random: Random, framing: FramingKind, toHost: boolean, previous: Buffer): Buffer {
  const { endpoint, pb } = randomMessage(random, toHost);
  if (random() < 0.35) {
    const inner = mutate(pb, random, bytes(random, 20)).subarray(0, 4000);
    const tlv = encodeTlv(endpoint, inner);
    return framing === 'serial' ? Buffer.concat(fragment(tlv, () => int(random, 65536))) : tlv;
  }
  const tlv = encodeTlv(endpoint, pb.subarray(0, 4000));
  const framed = framing === 'serial' ? Buffer.concat(fragment(tlv, () => int(random, 65536))) : tlv;
  return mutate(framed, random, previous);
}

/** Hands `data` over in random slices, the way reads come off a line. */
function slices(data: Buffer, random: Random, deliver: (chunk: Buffer) => void): void {
  for (let pos = 0; pos < data.length;) {
    const size = 1 + int(random, 2048);
    deliver(data.subarray(pos, pos + size));
    pos += size;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function fuzzFraming(framing: FramingKind, perDirection: number, deadline: number, seed: number) {
  const random = rng(seed);
  const otaPath = join(tmpdir(), `nestbox-fuzz-ota-${process.pid}-${framing}.bin`);
  const sim = new Simulator({ framing, timeScale: 1000, otaPath });
  const client = new CoprocClient({
    transport: new SimTransport(sim),
    framing,
    log: silentLogger,
    timeouts: { scan: 500, connectAp: 500 },
  });
  client.on('link', () => undefined);
  client.start();
  await waitForLink(client, 2000);
  await new Promise((resolve) => setTimeout(resolve, 20));
  let toHost = 0;
  let toDevice = 0;
  let previous: Buffer = Buffer.alloc(0);
  while ((toHost < perDirection || toDevice < perDirection) && Date.now() < deadline) {
    const towardsHost: Buffer[] = [];
    const towardsDevice: Buffer[] = [];
    for (let i = 0; i < BATCH; i++) {
      if (toHost < perDirection) {
        previous = fuzzFrame(random, framing, true, previous);
        towardsHost.push(previous);
        toHost++;
      }
      if (toDevice < perDirection) {
        previous = fuzzFrame(random, framing, false, previous);
        towardsDevice.push(previous);
        toDevice++;
      }
    }
    slices(Buffer.concat(towardsHost), random, (chunk) => sim.link.injectGarbage(chunk));
    slices(Buffer.concat(towardsDevice), random, (chunk) => sim.receive(chunk));
    // Keep the client busy with real requests among the noise (their answers race the fuzz).
    client.getMode().catch(() => undefined);
    await tick();
  }
  const fuzzEnded = Date.now();
  const answered = await stillAnswers(sim, client);
  const result = {
    framing,
    toHost,
    toDevice,
    answered,
    answerAfterMs: Date.now() - fuzzEnded,
    client: client.counters(),
    sim: { ...sim.link.counters },
  };
  await client.close();
  rmSync(otaPath, { force: true });
  return result;
}

/** After the storm: let the device finish what it was doing, then ask it something. */
async function stillAnswers(sim: Simulator, client: CoprocClient): Promise<boolean> {
  sim.freeze(false);
  for (let attempt = 0; attempt < 5; attempt++) {
    // Longer than the inter-byte timeout: a partial frame the fuzz left behind is given up.
    await new Promise((resolve) => setTimeout(resolve, 600));
    try {
      await client.call('getMode', {}, { timeoutMs: 1000 });
      return true;
    } catch {
      /* busy, rebooting or a queue full of fuzz: try again */
    }
  }
  return false;
}

export async function run(argv: string[]): Promise<void> {
  const { options } = parseCliArgs(argv);
  const count = Number(options.count ?? 100_000);
  const seconds = Number(options.seconds ?? 120);
  const seed = Number(options.seed ?? 20261122);
  if (!(count > 0) || !(seconds > 0) || !Number.isInteger(seed)) fail('--count, --seconds and --seed are numbers', 2);
  const crashes: string[] = [];
  process.on('uncaughtException', (error) => crashes.push(error.stack ?? String(error)));
  process.on('unhandledRejection', (error) => crashes.push(String(error)));

  const started = Date.now();
  const deadline = started + seconds * 1000;
  // `count` frames per direction, split over the two framings.
  const results: Array<Awaited<ReturnType<typeof fuzzFraming>>> = [];
  for (const [i, framing] of (['serial', 'esps'] as const).entries())
    results.push(await fuzzFraming(framing, Math.ceil(count / 2), deadline, seed + i));
  const elapsed = (Date.now() - started) / 1000;

  const total = results.reduce((sum, r) => sum + r.toHost + r.toDevice, 0);
  const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((s, r) => s + pick(r), 0);
  const figures: Figure[] = [
    { metric: 'frames_total', value: total },
    { metric: 'frames_to_host', value: sum((r) => r.toHost) },
    { metric: 'frames_to_device', value: sum((r) => r.toDevice) },
    { metric: 'crashes', value: crashes.length },
    { metric: 'answers_afterwards', value: results.every((r) => r.answered) ? 1 : 0 },
    { metric: 'seconds', value: elapsed, unit: 's' },
    { metric: 'answer_after_ms', value: Math.max(...results.map((r) => r.answerAfterMs)), unit: 'ms' },
    { metric: 'host_bad_frames', value: sum((r) => r.client.badFrames) },
    { metric: 'host_bad_checksums', value: sum((r) => r.client.badChecksums) },
    { metric: 'host_undecodable', value: sum((r) => r.client.undecodable) },
    { metric: 'host_unknown_messages', value: sum((r) => r.client.unknownMessages) },
    { metric: 'host_unknown_fields', value: sum((r) => r.client.unknownFields) },
    { metric: 'host_events', value: sum((r) => r.client.eventsIn) },
    { metric: 'device_requests', value: sum((r) => r.sim.requests) },
    { metric: 'device_bad_frames', value: sum((r) => r.sim.badFrames) },
  ];
  report('fuzz_link', figures);
  if (crashes.length) process.stderr.write(`first crash:\n${crashes[0]}\n`);
  process.exitCode =
    crashes.length === 0 && results.every((r) => r.answered) && total >= Math.min(count, 100_000) ? 0 : 1;
}
