/**
 * The simulated device's end of the link: bytes from the line → device framing → requests for the
 * SimDevice (one at a time, as the firmware's pserial task takes them from its queue) → answers and
 * events framed back onto the line. On boot it announces itself: PRIV INIT (header framing), then
 * Event_DevInit.
 */
import { decodeCtrlMsg, encodeCtrlMsg, type Body } from '../codec.js';
import { createFraming, isHeaderFraming, type Framing, type FramingKind } from '../framing/index.js';
import { EVENT, MSG_TYPE, operationById, RESP_OFFSET, type EventName } from '../operations.js';
import type { SimDevice } from './device.js';
import { ThrottledLine } from './line.js';

/** The firmware's protocomm request queue depth (REQ_Q_MAX). */
const REQUEST_QUEUE_MAX = 10;

export interface SimLinkOptions {
  framing: FramingKind;
  device: SimDevice;
  /** Puts bytes on the line towards the host. */
  write: (bytes: Buffer) => void;
  /** Emulate a UART of this speed in both directions; unlimited when absent. */
  baud?: number;
}

export interface SimLinkCounters {
  requests: number;
  responses: number;
  events: number;
  unanswered: number;
  badFrames: number;
  undecodable: number;
  dropped: number;
}

export class SimLink {
  readonly framing: Framing;
  readonly counters: SimLinkCounters = {
    requests: 0,
    responses: 0,
    events: 0,
    unanswered: 0,
    badFrames: 0,
    undecodable: 0,
    dropped: 0,
  };
  private readonly queue: Buffer[] = [];
  private working = false;
  /** Changes at every device reset: a request being served across a reset is forgotten. */
  private generation = 0;
  private readonly inbound: (chunk: Buffer) => void;
  private readonly outbound: (bytes: Buffer) => void;
  private readonly device: SimDevice;

  constructor(options: SimLinkOptions) {
    this.device = options.device;
    this.framing = createFraming(options.framing, 'device', {
      frame: (endpoint, data) => {
        if (endpoint === 'ctrlResp') this.enqueue(data);
        else this.counters.badFrames += 1;
      },
      fault: () => {
        this.counters.badFrames += 1;
      },
    });
    const inLine = options.baud ? new ThrottledLine(options.baud, (chunk) => this.framing.push(chunk)) : null;
    const outLine = options.baud ? new ThrottledLine(options.baud, options.write) : null;
    this.inbound = inLine ? (chunk) => inLine.push(chunk) : (chunk) => this.framing.push(chunk);
    this.outbound = outLine ? (bytes) => outLine.push(bytes) : options.write;

    this.device.on('event', (name, body) => this.sendEvent(name, body));
    this.device.on('reset', () => {
      this.framing.reset();
      this.queue.length = 0;
      this.generation += 1;
      this.working = false;
    });
    this.device.on('boot', () => this.announce());
  }

  /** Bytes arriving from the host. A booting or frozen device hears nothing. */
  receive(chunk: Buffer): void {
    if (this.device.booting || this.device.frozen) return;
    this.inbound(chunk);
  }

  /** Stray bytes on the line towards the host (a glitch, a boot ROM message). */
  injectGarbage(bytes: Uint8Array): void {
    this.outbound(Buffer.from(bytes));
  }

  /** What the firmware sends once its data path is up. */
  announce(): void {
    if (isHeaderFraming(this.framing)) {
      const fwVersion = this.device.announcedVersion;
      this.outbound(this.framing.encodePrivInit({ chipId: 0x00, capabilities: 0xa0, spiClockMhz: 10, fwVersion }));
    }
    this.sendEvent('devInit', {});
  }

  private sendEvent(name: EventName, body: Body): void {
    if (this.device.frozen) return;
    const spec = EVENT[name];
    this.counters.events += 1;
    this.outbound(this.framing.encode('ctrlEvnt', encodeCtrlMsg(MSG_TYPE.event, spec.id, spec.field, body)));
  }

  private enqueue(data: Buffer): void {
    if (this.queue.length >= REQUEST_QUEUE_MAX) {
      this.counters.dropped += 1;
      return;
    }
    this.queue.push(data);
    if (!this.working) void this.work();
  }

  private async work(): Promise<void> {
    const generation = this.generation;
    this.working = true;
    for (let data = this.queue.shift(); data; data = this.queue.shift()) {
      await this.serve(data);
      if (generation !== this.generation) return; // the device rebooted meanwhile: a new loop owns the queue
    }
    this.working = false;
  }

  /**
   * One request: the firmware ignores msg_type and answers msg_id + 100, or nothing at all — as the
   * documented firmware does for the current firmware's ids. The current firmware echoes the uid.
   */
  private async serve(data: Buffer): Promise<void> {
    this.counters.requests += 1;
    let message;
    try {
      message = decodeCtrlMsg(data);
    } catch {
      this.counters.undecodable += 1;
      this.counters.unanswered += 1;
      return;
    }
    const spec = operationById(message.msgId);
    if (!spec || (spec.since === 'current' && !this.device.current)) {
      this.counters.unanswered += 1;
      return;
    }
    const epoch = this.device.epoch;
    this.device.emit('request', spec.name);
    const body = message.field === spec.requestField ? message.body : null;
    const reply = await this.device.handlers[spec.name](body);
    if (!reply || epoch !== this.device.epoch || this.device.frozen) {
      this.counters.unanswered += 1;
      return;
    }
    this.counters.responses += 1;
    const uid = this.device.current ? message.uid : 0;
    const pb = encodeCtrlMsg(MSG_TYPE.response, spec.id + RESP_OFFSET, spec.responseField, reply, uid);
    this.outbound(this.framing.encode('ctrlResp', pb));
  }
}
