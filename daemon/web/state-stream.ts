/**
 * DeviceState as server-sent events for the dashboard: the whole state first, then the state
 * again on every change and each device event as it happens. EventSource cannot send headers,
 * so the token comes as ?access_token= (the shared auth middleware accepts it).
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { DeviceEvent, DeviceState } from '../device/state.js';
import { HttpError } from '../http/errors.js';

const KEEPALIVE_MS = 15_000;
/** Dashboards open at once; beyond this a new one is refused rather than the process slowed. */
export const MAX_STREAMS = 16;
let openStreams = 0;

export function openStateStream(ctx: Context, device: DeviceState): void {
  if (openStreams >= MAX_STREAMS) throw new HttpError(503, 'Too many open dashboards; close one and retry');
  openStreams += 1;
  // Each stream adds one listener per event: room for them beside the outputs' own.
  device.setMaxListeners(Math.max(device.getMaxListeners(), MAX_STREAMS + 10));
  const stream = new PassThrough();
  const send = (event: string, data: unknown) => stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const onChange = () => send('state', device.get());
  const onEvent = (event: DeviceEvent) => send('device_event', event);
  const keepalive = setInterval(() => stream.write(': keepalive\n\n'), KEEPALIVE_MS);
  device.on('change', onChange);
  device.on('event', onEvent);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    openStreams -= 1;
    clearInterval(keepalive);
    device.off('change', onChange);
    device.off('event', onEvent);
    stream.end();
  };
  ctx.req.on('close', close);
  ctx.req.socket.setTimeout(0);
  ctx.set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  ctx.status = 200;
  ctx.body = stream;
  send('state', device.get());
}
