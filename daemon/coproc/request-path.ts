/**
 * The client's request path: one request in flight at a time (the device serves them one by one),
 * the others waiting in a queue. Each has its timeout (the device does not answer a request it
 * cannot parse, nor the documented firmware an id it does not know); an answer is matched by
 * msg_type Resp, request id + 100 and — when the firmware echoes one — the request's uid, and one
 * that comes after its timeout is dropped and counted, never handed to the next caller. A reboot,
 * a refused write, a damaged answer or a link going down fail the request at once.
 */
import type { Logger } from '../log/logger.js';
import { CoprocError, type LinkCounters } from './api.js';
import { encodeCtrlMsg, type Body, type CtrlMessage } from './codec.js';
import { InvalidArgument } from './convert.js';
import { DEVICE_MAX_FRAME, type Framing } from './framing/index.js';
import { TLV_PREFIX_LEN } from './framing/tlv.js';
import { MSG_TYPE, OPERATION, RESP_MAX, RESP_OFFSET, type OperationName, type OperationSpec } from './operations.js';
import type { Transport } from './transport/types.js';

export interface CallOptions {
  timeoutMs?: number;
  /** A question the device may not know (a probe): its timeout does not mean it stopped answering. */
  probe?: boolean;
}

export interface RequestPathOptions {
  transport: Transport;
  /** Encodes the request into the link's frames. */
  framing: Pick<Framing, 'encode'>;
  log: Logger;
  /** The link's counters, shared with the client (frames out, timeouts, late answers). */
  stats: LinkCounters;
  /** Per-operation timeouts in ms, replacing the table's defaults. */
  timeouts: Partial<Record<OperationName, number>>;
  /** Requests allowed to wait behind the one in flight. */
  queueLimit: number;
  /** The device answered (true) or let a request that is not a probe time out (false). */
  answered(answering: boolean, operation: OperationName): void;
  /** A message that is no answer to any request this host sends. */
  unknown(message: CtrlMessage, what: string): void;
}

interface Pending {
  spec: OperationSpec;
  uid: number;
  bytes: Buffer;
  timeoutMs: number;
  probe: boolean;
  sentAt?: number;
  resolve(body: Body): void;
  reject(error: CoprocError): void;
  timer?: NodeJS.Timeout;
}

/**
 * Longest time bytes take from the device to us. A request written more than this before the
 * device's Event_DevInit arrived reached it before it had booted: it will never be answered.
 */
const RESTART_TRANSIT_MS = 50;
/**
 * How long a request that may have crossed the announcement is still awaited: a freshly booted
 * device answers at once, and one that never heard the request must not hold the queue for its
 * whole timeout.
 */
const CROSSED_ANSWER_MS = 1000;
/** Espressif's host library counts uids from 1 and wraps before INT32_MAX. */
const UID_MAX = 0x7fffffff;

export class RequestPath {
  private readonly queue: Pending[] = [];
  private inflight: Pending | null = null;
  private lastUid = 0;

  constructor(private readonly options: RequestPathOptions) {}

  /** Queues one request; resolves with the device's answer, `resp` included. */
  call(operation: OperationName, request: Body, options: CallOptions): Promise<Body> {
    const spec = OPERATION[operation];
    let bytes: Buffer;
    const uid = this.nextUid();
    try {
      const pb = encodeCtrlMsg(MSG_TYPE.request, spec.id, spec.requestField, request, uid);
      if (pb.length + TLV_PREFIX_LEN > DEVICE_MAX_FRAME)
        throw new InvalidArgument(
          `the request is ${pb.length + TLV_PREFIX_LEN} bytes; the device takes at most ${DEVICE_MAX_FRAME}`,
        );
      bytes = this.options.framing.encode('ctrlResp', pb);
    } catch (error) {
      return Promise.reject(
        new CoprocError(operation, 'invalid', null, `${spec.protocolName}: ${(error as Error).message}`),
      );
    }
    const { queueLimit } = this.options;
    if (this.queue.length >= queueLimit) {
      return Promise.reject(
        new CoprocError(operation, 'invalid', null, `${spec.protocolName}: ${queueLimit} requests are already waiting`),
      );
    }
    const timeoutMs = options.timeoutMs ?? this.options.timeouts[operation] ?? spec.timeoutMs;
    return new Promise<Body>((resolve, reject) => {
      this.queue.push({ spec, uid, bytes, timeoutMs, probe: options.probe ?? false, resolve, reject });
      this.pump();
    });
  }

  /** An answer from the device: the awaited one, a late one (dropped, counted) or a stray one. */
  onResponse(message: CtrlMessage): void {
    const pending = this.inflight;
    // The documented firmware sends no uid (0); the current one echoes the request's.
    const uidMatches = message.uid === 0 || message.uid === pending?.uid;
    if (
      pending &&
      uidMatches &&
      message.msgId === pending.spec.id + RESP_OFFSET &&
      message.field === pending.spec.responseField
    ) {
      this.settle(pending);
      this.options.answered(true, pending.spec.name);
      pending.resolve(message.body ?? {});
      return;
    }
    if (message.msgId > RESP_OFFSET * 2 && message.msgId < RESP_MAX) {
      this.options.stats.lateResponses += 1;
      this.options.log.info('dropped a coprocessor answer nobody waits for (late, after its timeout)', {
        msg_id: message.msgId,
        uid: message.uid,
        waiting_for: pending?.spec.protocolName ?? null,
      });
      return;
    }
    this.options.unknown(message, 'an answer to no request this host sends');
  }

  /**
   * A rebooted device forgets the request it was serving: fail it now rather than at its timeout.
   * A request sent just before the announcement may have crossed it on the wire and be answered.
   */
  deviceRestarted(): void {
    const pending = this.inflight;
    const lost = pending && performance.now() - (pending.sentAt ?? 0) > RESTART_TRANSIT_MS;
    this.options.log.info('coprocessor (re)started', { interrupted: lost ? pending.spec.protocolName : null });
    if (!pending) return;
    if (lost) {
      this.failRestarted(pending);
      return;
    }
    const remaining = pending.timeoutMs - (performance.now() - (pending.sentAt ?? 0));
    if (remaining <= CROSSED_ANSWER_MS) return;
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => {
      if (this.inflight === pending) this.failRestarted(pending);
    }, CROSSED_ANSWER_MS);
  }

  private failRestarted(pending: Pending): void {
    this.settle(pending);
    pending.reject(
      new CoprocError(
        pending.spec.name,
        'link_down',
        null,
        `${pending.spec.protocolName}: the coprocessor restarted before answering`,
      ),
    );
  }

  /** The transport could not send the request in flight: it fails now, not at its timeout. */
  refused(reason: string): void {
    const pending = this.inflight;
    if (!pending) return;
    this.settle(pending);
    pending.reject(new CoprocError(pending.spec.name, 'invalid', null, `${pending.spec.protocolName}: ${reason}`));
  }

  /** The awaited answer arrived damaged (cut short, undecodable): it fails now. */
  failDamaged(detail: string): void {
    const pending = this.inflight;
    if (!pending) return;
    this.settle(pending);
    const message = `${pending.spec.protocolName}: the answer was cut short (${detail})`;
    pending.reject(new CoprocError(pending.spec.name, 'truncated', null, message));
  }

  /** The link went down or the client closes: every request, in flight or waiting, fails. */
  failAll(message: string): void {
    const pending = [...(this.inflight ? [this.inflight] : []), ...this.queue.splice(0)];
    this.inflight = null;
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(new CoprocError(p.spec.name, 'link_down', null, `${p.spec.protocolName}: ${message}`));
    }
  }

  private nextUid(): number {
    this.lastUid = this.lastUid >= UID_MAX ? 1 : this.lastUid + 1;
    return this.lastUid;
  }

  private pump(): void {
    if (this.inflight || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    if (!this.options.transport.write(pending.bytes)) {
      pending.reject(
        new CoprocError(
          pending.spec.name,
          'link_down',
          null,
          `${pending.spec.protocolName}: the coprocessor link is down`,
        ),
      );
      this.pump();
      return;
    }
    this.options.stats.framesOut += 1;
    pending.sentAt = performance.now();
    this.inflight = pending;
    pending.timer = setTimeout(() => this.onTimeout(pending), pending.timeoutMs);
  }

  private settle(pending: Pending): void {
    clearTimeout(pending.timer);
    if (this.inflight === pending) this.inflight = null;
    queueMicrotask(() => this.pump());
  }

  private onTimeout(pending: Pending): void {
    if (this.inflight !== pending) return;
    this.options.stats.timeouts += 1;
    this.settle(pending);
    const seconds = pending.timeoutMs / 1000;
    const fields = { operation: pending.spec.protocolName, timeout_s: seconds };
    // A probe's silence is an answer (the documented firmware does not know the question).
    if (pending.probe) this.options.log.info('coprocessor did not answer a probe', fields);
    else this.options.log.warn('coprocessor did not answer', fields);
    pending.reject(
      new CoprocError(
        pending.spec.name,
        'timeout',
        null,
        `${pending.spec.protocolName}: no answer from the coprocessor within ${seconds} s`,
      ),
    );
    if (!pending.probe) this.options.answered(false, pending.spec.name);
  }
}
