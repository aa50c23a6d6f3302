/**
 * A real mosquitto broker for tests (Debian's /usr/sbin/mosquitto): a free loopback port, a
 * generated config with a password file (mosquitto_passwd) and an ACL, stop, and restart on the
 * same port. Retained messages live in memory only, so a restart forgets them (as a broker
 * without persistence does), which is what the "republish after reconnect" tests need.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { tempDir } from './paths.js';
import { freePort } from './ports.js';
import { requirePackage } from './system-packages.js';

export const MOSQUITTO = '/usr/sbin/mosquitto';
export const MOSQUITTO_PASSWD = '/usr/bin/mosquitto_passwd';

/** The box and Home Assistant logins, as the README's ACL describes them. */
export const BOX_USER = { username: 'nestbox', password: 'box-s3cret-pw' };
export const HA_USER = { username: 'homeassistant', password: 'ha-s3cret-pw' };

/** The README's ACL for a box and a Home Assistant, with `nestbox` and `homeassistant` prefixes. */
export const DEFAULT_ACL = `user ${BOX_USER.username}
topic readwrite nestbox/#
topic write homeassistant/device/+/config
topic read homeassistant/status

user ${HA_USER.username}
topic readwrite homeassistant/#
topic read nestbox/#
topic write nestbox/+/command/+
`;

export interface BrokerOptions {
  users?: Array<{ username: string; password: string }>;
  acl?: string;
  /** Adds an mqtts:// listener with a generated CA that requires a client certificate. */
  tls?: boolean;
  /** Adds a ws:// listener (mosquitto needs the plain listener beside it to start). */
  websockets?: boolean;
}

/** Files of the generated test PKI: a CA, the broker's certificate (IP 127.0.0.1) and a client's. */
export interface TestPki {
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

export interface MosquittoBroker {
  port: number;
  /** mqtt://127.0.0.1:<port> */
  url: string;
  /** mqtts://127.0.0.1:<port> when started with `tls`. */
  tlsUrl: string | null;
  /** ws://127.0.0.1:<port> when started with `websockets`. */
  wsUrl: string | null;
  pki: TestPki | null;
  stop(): Promise<void>;
  /** Stops and starts again on the same port (retained messages are gone). */
  restart(): Promise<void>;
  /** A client logged in as `user`, connected; rejects when the broker refuses. */
  client(user?: { username: string; password: string }, options?: IClientOptions): Promise<MqttClient>;
  logs(): string;
}

export async function startMosquitto(options: BrokerOptions = {}): Promise<MosquittoBroker> {
  requirePackage(options.tls ? ['mosquitto', 'openssl'] : ['mosquitto']);
  const dir = tempDir('nestbox-mosquitto-');
  // Started as root, mosquitto drops to its own user unless told otherwise: keep files readable.
  chmodSync(dir.path, 0o755);
  const port = await freePort();
  const passwordFile = join(dir.path, 'passwd');
  const aclFile = join(dir.path, 'acl');
  const configFile = join(dir.path, 'mosquitto.conf');
  const users = options.users ?? [BOX_USER, HA_USER];
  writeFileSync(passwordFile, '');
  for (const user of users) {
    const made = spawnSync(MOSQUITTO_PASSWD, ['-b', passwordFile, user.username, user.password], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr}`);
  }
  writeFileSync(aclFile, options.acl ?? DEFAULT_ACL);
  const tlsPort = options.tls ? await freePort() : null;
  const pki = options.tls ? makeTestPki(dir.path) : null;
  const tlsListener =
    tlsPort && pki
      ? [
          `listener ${tlsPort} 127.0.0.1`,
          `cafile ${pki.caFile}`,
          `certfile ${join(dir.path, 'server.pem')}`,
          `keyfile ${join(dir.path, 'server.key')}`,
          'require_certificate true',
        ]
      : [];
  const wsPort = options.websockets ? await freePort() : null;
  const wsListener = wsPort ? [`listener ${wsPort} 127.0.0.1`, 'protocol websockets'] : [];
  writeFileSync(
    configFile,
    [
      `user ${userInfo().username}`,
      'per_listener_settings false',
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      'log_type notice',
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `password_file ${passwordFile}`,
      `acl_file ${aclFile}`,
      ...tlsListener,
      ...wsListener,
      '',
    ].join('\n'),
  );
  for (const file of [passwordFile, aclFile, configFile]) chmodSync(file, 0o644);

  let child: ChildProcess | null = null;
  let output = '';
  const clients = new Set<MqttClient>();

  async function launch(): Promise<void> {
    const started = spawn(MOSQUITTO, ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout.on('data', (chunk) => {
      output += chunk;
    });
    started.stderr.on('data', (chunk) => {
      output += chunk;
    });
    await waitForPort(port, started, () => output);
    for (const extra of [tlsPort, wsPort]) if (extra) await waitForPort(extra, started, () => output);
  }

  async function halt(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }

  await launch();
  const url = `mqtt://127.0.0.1:${port}`;
  return {
    port,
    url,
    tlsUrl: tlsPort ? `mqtts://127.0.0.1:${tlsPort}` : null,
    wsUrl: wsPort ? `ws://127.0.0.1:${wsPort}` : null,
    pki,
    logs: () => output,
    async stop() {
      for (const client of clients) client.end(true);
      clients.clear();
      await halt();
      dir.remove();
    },
    async restart() {
      await halt();
      await launch();
    },
    async client(user = HA_USER, extra = {}) {
      const client = await mqtt.connectAsync(url, {
        username: user.username,
        password: user.password,
        reconnectPeriod: 0,
        connectTimeout: 3000,
        ...extra,
      });
      clients.add(client);
      client.on('close', () => clients.delete(client));
      return client;
    },
  };
}

/** A throw-away CA signing the broker's certificate (for 127.0.0.1) and a client certificate. */
function makeTestPki(dir: string): TestPki {
  const openssl = (...args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.error) throw new Error(`openssl: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=nestbox test CA');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  openssl('req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=nestbox-box');
  openssl(
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'client.pem',
    '-days',
    '2',
  );
  for (const file of ['ca.pem', 'server.pem', 'server.key', 'client.pem', 'client.key'])
    chmodSync(join(dir, file), 0o644);
  return {
    caFile: join(dir, 'ca.pem'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client.key'),
  };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited (${child.exitCode}): ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`mosquitto did not listen on ${port} in time: ${output()}`);
}

export interface ReceivedMessage {
  topic: string;
  text: string;
  retain: boolean;
  at: number;
}

/** Subscribes and records every message; `wait()` resolves with the first that matches. */
export interface MessageRecorder {
  messages: ReceivedMessage[];
  /** Looks at messages from index `from` on (0: everything so far, then what arrives). */
  wait(
    match: (message: ReceivedMessage) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<ReceivedMessage>;
  /** Index of the next message, for `wait({from})` that only looks ahead. */
  mark(): number;
}

export async function recordMessages(client: MqttClient, filter: string | string[]): Promise<MessageRecorder> {
  const messages: ReceivedMessage[] = [];
  const waiters = new Set<(message: ReceivedMessage) => void>();
  client.on('message', (topic, payload, packet) => {
    const message = { topic, text: payload.toString('utf8'), retain: packet.retain, at: performance.now() };
    messages.push(message);
    for (const waiter of waiters) waiter(message);
  });
  await client.subscribeAsync(filter, { qos: 1 });
  return {
    messages,
    mark: () => messages.length,
    wait(match, { from = 0, timeoutMs = 5000 } = {}) {
      const seen = messages.slice(from).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = (message: ReceivedMessage) => {
          if (!match(message)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(message);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `no matching MQTT message within ${timeoutMs} ms; got: ${messages
                .slice(from)
                .map((m) => `${m.topic}=${m.text.slice(0, 60)}`)
                .join(' | ')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}
