/**
 * A coprocessor firmware update: OTABegin → OTAWrite (4000-byte chunks) → OTAEnd, then the device
 * reboots about 5 s later and announces itself (Event_DevInit); success is reported only then.
 * Progress (bytes, percent, rate) goes out as events; any failure stops the update with an error
 * that says which step failed.
 */
import { EventEmitter } from 'node:events';
import { CoprocError, type CoprocClientApi } from './api.js';
import { OTA_CHUNK_MAX } from './client.js';

/** Every ESP application image starts with this magic byte (esp_image_header_t.magic). */
export const ESP_IMAGE_MAGIC = 0xe9;

/** Refuses what cannot be an application image before anything is sent to the device. */
export function checkImage(image: Uint8Array): void {
  if (image.length === 0 || image[0] !== ESP_IMAGE_MAGIC) {
    throw new OtaError(
      'image',
      `not an ESP firmware image (it must start with the byte 0x${ESP_IMAGE_MAGIC.toString(16)})`,
    );
  }
}

export type OtaPhase = 'begin' | 'writing' | 'ending' | 'rebooting' | 'done';

export interface OtaProgress {
  phase: OtaPhase;
  bytes: number;
  total: number;
  percent: number;
  /** Bytes per second written so far. */
  rate: number;
}

export interface OtaResult {
  bytes: number;
  /** Time from OTABegin to the device's answer to OTAEnd. */
  writeSeconds: number;
  rate: number;
  /** Time from OTAEnd to the device's announcement after its reboot. */
  rebootSeconds: number;
}

export class OtaError extends Error {
  constructor(
    readonly step: OtaPhase | 'image',
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'OtaError';
  }
}

export interface OtaOptions {
  chunkSize?: number;
  /** How long to wait for the device to come back after OTAEnd (default 60 s). */
  rebootTimeoutMs?: number;
}

export class OtaUpdate extends EventEmitter<{ progress: [OtaProgress] }> {
  constructor(
    private readonly client: CoprocClientApi,
    private readonly options: OtaOptions = {},
  ) {
    super();
  }

  async run(image: Uint8Array): Promise<OtaResult> {
    const chunkSize = Math.min(this.options.chunkSize ?? OTA_CHUNK_MAX, OTA_CHUNK_MAX);
    checkImage(image);
    const total = image.length;
    const started = performance.now();
    const progress = (phase: OtaPhase, bytes: number) => {
      const seconds = (performance.now() - started) / 1000;
      this.emit('progress', {
        phase,
        bytes,
        total,
        percent: Math.floor((bytes / total) * 100),
        rate: seconds > 0 ? bytes / seconds : 0,
      });
    };
    let restarted = false;
    const onRestart = () => {
      restarted = true;
    };
    this.client.on('devInit', onRestart);
    try {
      progress('begin', 0);
      await this.step(
        'begin',
        () => this.client.otaBegin(),
        () => restarted,
      );
      for (let offset = 0; offset < total; offset += chunkSize) {
        const chunk = image.subarray(offset, Math.min(offset + chunkSize, total));
        await this.step(
          'writing',
          () => this.client.otaWrite(chunk),
          () => restarted,
          `at byte ${offset} of ${total}`,
        );
        progress('writing', offset + chunk.length);
      }
      progress('ending', total);
      await this.step(
        'ending',
        () => this.client.otaEnd(),
        () => restarted,
      );
    } finally {
      this.client.off('devInit', onRestart);
    }
    const writeSeconds = (performance.now() - started) / 1000;
    progress('rebooting', total);
    const ended = performance.now();
    await this.waitForRestart();
    progress('done', total);
    return {
      bytes: total,
      writeSeconds,
      rate: total / writeSeconds,
      rebootSeconds: (performance.now() - ended) / 1000,
    };
  }

  private async step(
    phase: OtaPhase,
    action: () => Promise<void>,
    restarted: () => boolean,
    where = '',
  ): Promise<void> {
    const names: Record<string, string> = { begin: 'OTABegin', writing: 'OTAWrite', ending: 'OTAEnd' };
    try {
      await action();
    } catch (error) {
      const what = restarted() ? 'the coprocessor restarted during the update' : (error as Error).message;
      const code = error instanceof CoprocError && error.code !== null ? ` (resp ${error.code})` : '';
      throw new OtaError(
        phase,
        `firmware update failed at ${names[phase]}${where ? ` ${where}` : ''}: ${what}${code && !what.includes('resp') ? code : ''}`,
        error,
      );
    }
    if (restarted())
      throw new OtaError(
        phase,
        `firmware update failed at ${names[phase]}: the coprocessor restarted during the update`,
      );
  }

  private waitForRestart(): Promise<void> {
    const timeoutMs = this.options.rebootTimeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.client.off('devInit', done);
        reject(
          new OtaError(
            'rebooting',
            `the image was accepted, but the coprocessor did not restart within ${timeoutMs / 1000} s`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.client.off('devInit', done);
        resolve();
      };
      this.client.on('devInit', done);
    });
  }
}
