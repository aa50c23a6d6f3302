/** Real image files for the media tests, made with sharp: a JPEG carrying EXIF GPS, a PNG, and a big noisy JPEG. */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type Sharp from 'sharp';

/**
 * sharp, loaded when an image is first made: loading it costs a suite about a third of a second of
 * CPU, and most suites only need the one PNG, which a run makes once (see png()).
 */
async function loadSharp(): Promise<typeof Sharp> {
  return (await import('sharp')).default;
}

export async function jpegWithGps(width = 800, height = 600): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'NestboxTestCam', Copyright: 'test' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2400/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 21/1 600/100',
      },
    })
    .toBuffer();
}

/**
 * A half-transparent PNG. sharp makes the same bytes for the same size every time, so under the
 * runner (TEST_SCRATCH_DIR) the first suite to ask keeps it in the run's scratch folder for the rest.
 */
export async function png(width = 300, height = 200): Promise<Buffer> {
  const scratch = process.env.TEST_SCRATCH_DIR;
  const kept = scratch && join(scratch, `png-${width}x${height}.png`);
  if (kept && existsSync(kept)) return readFileSync(kept);
  const sharp = await loadSharp();
  const image = await sharp({
    create: { width, height, channels: 4, background: { r: 10, g: 120, b: 240, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
  if (kept && existsSync(scratch)) {
    // Suites running side by side may make it at once: each writes its own file, the rename is atomic.
    writeFileSync(`${kept}.${process.pid}`, image);
    renameSync(`${kept}.${process.pid}`, kept);
  }
  return image;
}

/** A real JPEG padded past `bytes` (decoders ignore what follows the end-of-image marker). */
export async function paddedJpeg(bytes: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const jpeg = await sharp(randomBytes(64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } })
    .jpeg()
    .toBuffer();
  return Buffer.concat([jpeg, Buffer.alloc(bytes - jpeg.length + 1)]);
}

export function form(fields: Record<string, string | { data: Buffer; type: string; name: string }>): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') body.append(key, value);
    else body.append(key, new Blob([value.data], { type: value.type }), value.name);
  }
  return body;
}

/** A real PCM WAV file: `seconds` of a 440 Hz tone, 8 kHz mono 16-bit. */
export function wav(seconds = 0.5): Buffer {
  const rate = 8000;
  const samples = Math.round(rate * seconds);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Uploads a real PNG through POST /api/v1/media (processed at once) and returns its id. */
export async function uploadPng(baseUrl: string, token: string, description?: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form({
      file: { data: await png(), type: 'image/png', name: 'p.png' },
      ...(description ? { description } : {}),
    }),
  });
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** A PNG whose header reads well (sharp's metadata passes) but whose image data is garbage: decoding fails. */
export async function corruptPng(): Promise<Buffer> {
  const bytes = Buffer.from(await png(300, 200));
  const data = bytes.indexOf(Buffer.from('IDAT')) + 8;
  bytes.fill(0xff, data, data + 32);
  return bytes;
}

/**
 * Starts a media upload on a raw socket that announces 10 MB and sends the first `bytes` of the
 * file part only; returns the socket (the caller cuts it off, or kills the daemon).
 */
export async function startUnfinishedUpload(port: number, token: string, bytes = 200 * 1024): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(
    [
      'POST /api/v2/media HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${token}`,
      'Content-Type: multipart/form-data; boundary=cut',
      'Content-Length: 10000000',
      '',
      '--cut',
      'Content-Disposition: form-data; name="file"; filename="a.png"',
      'Content-Type: image/png',
      '',
      '',
    ].join('\r\n'),
  );
  socket.write(Buffer.alloc(bytes, 1));
  return socket;
}
