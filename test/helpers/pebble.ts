/**
 * Let's Encrypt's test CA (Debian's pebble) on loopback, asking a given DNS server for every
 * validation (`-dnsserver`): enough for an ACME order proved with DNS-01, without the virtual
 * internet's namespaces. Its HTTPS certificate comes from a throwaway CA (caPem).
 */
import { spawn } from 'node:child_process';
import { get } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { requirePackage } from './system-packages.js';
import { makeTestCa } from './virtual-internet/test-ca.js';

export interface Pebble {
  directoryUrl: string;
  /** The root pebble's own HTTPS certificate comes from (what NESTBOX_ACME_CA_FILE would hold). */
  caPem: string;
  stop(): Promise<void>;
}

export async function startPebble(options: { dir: string; dnsServer: string }): Promise<Pebble> {
  requirePackage(['pebble', 'openssl']);
  const ca = makeTestCa(options.dir, 'localhost', ['127.0.0.1']);
  const [port, management, http01] = [await freePort(), await freePort(), await freePort()];
  const config = join(options.dir, 'pebble.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: ca.certFile,
        privateKey: ca.keyFile,
        httpPort: http01,
        tlsPort: http01,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const child = spawn('pebble', ['-config', config, '-dnsserver', options.dnsServer], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const directoryUrl = `https://127.0.0.1:${port}/dir`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const status = await new Promise<number>((resolve) =>
      get(directoryUrl, { ca: ca.caPem }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', () => resolve(0)),
    );
    if (status === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`pebble did not start: ${stderr.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { directoryUrl, caPem: ca.caPem, stop };
}
