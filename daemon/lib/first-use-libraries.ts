/**
 * The libraries a start of the daemon must not load: each is loaded the first time it is used
 * (through `lazy` or `onFirstUse`), or only when its subsystem is configured. The bundle leaves
 * them in node_modules (scripts/bundle.mjs), and the lean-start test checks that a start loads none.
 */
export const FIRST_USE_LIBRARIES: readonly string[] = [
  'sharp',
  'blurhash',
  'file-type',
  'koa-body',
  'web-push',
  'nodemailer',
  '@peertube/http-signature',
  'http-message-signatures',
  'structured-headers',
  'multiformats',
  'sanitize-html',
  'htmlparser2',
  'ws',
  'rate-limiter-flexible',
  'dns-packet',
  'mqtt',
  'serialport',
  '@serialport/bindings-cpp',
  '@homebridge/ciao',
  '@achingbrain/nat-port-mapper',
  'acme-client',
];
