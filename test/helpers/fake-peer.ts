/**
 * A fake ActivityPub server on loopback for signature tests: it serves actor documents with keys
 * it generates (and can rotate), and sends signed POSTs the way a peer would, or with one thing
 * wrong on purpose (a stale date, a body other than the one signed).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import httpSignature from '@peertube/http-signature';
import { digestHeader } from '../../daemon/social/federation/signatures/sign.js';

export interface FakeActor {
  username: string;
  uri: string;
  keyId: string;
  publicKeyPem: string;
  privateKeyPem: string;
  /** Ed25519 keys the document lists besides publicKey: FEP-521a Multikeys or Misskey's additionalPublicKeys. */
  extraKeys?: Array<{ id: string; publicKeyPem: string; style: 'multikey' | 'misskey' }>;
}

let base58btc: { encode(bytes: Uint8Array): string } | null = null;
async function base58(): Promise<void> {
  base58btc ??= (await import('multiformats/bases/base58')).base58btc;
}

/** FEP-521a: base58btc of the ed25519-pub multicodec (0xed 0x01) and the 32 raw key bytes. */
function multibaseOf(publicKeyPem: string): string {
  const raw = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }).subarray(-32);
  return base58btc!.encode(Buffer.concat([Buffer.from([0xed, 0x01]), raw]));
}

/** A response's status and text. */
function readAnswer(response: http.IncomingMessage): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.on('error', reject);
    response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
  });
}

export class FakePeer {
  readonly actors = new Map<string, FakeActor>();
  /** Every GET the peer answered, as the signature library reads a request. */
  readonly gets: Array<{ method: string; url: string; httpVersion: string; headers: http.IncomingHttpHeaders }> = [];
  /** Files the peer serves by path (media of its notes). */
  readonly files = new Map<string, { type: string; body: Buffer }>();
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakePeer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const peer = new FakePeer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.method === 'GET')
        peer.gets.push({ method: req.method, url: req.url ?? '', httpVersion: req.httpVersion, headers: req.headers });
      const file = peer.files.get(req.url ?? '');
      if (file) {
        res.writeHead(200, { 'content-type': file.type }).end(file.body);
        return;
      }
      const name = /^\/users\/([^/?#]+)$/.exec(req.url ?? '')?.[1];
      const actor = name ? peer.actors.get(name) : undefined;
      if (!actor) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(JSON.stringify(peer.document(actor)));
    });
    return peer;
  }

  /**
   * A Create of a direct Note by `actor` mentioning the account at `recipient` (its actor URI), as
   * JSON text; `claimedActor` names another actor than the one that will sign (a forgery).
   */
  mention(actor: FakeActor, text: string, recipient: string, claimedActor = actor.uri): string {
    this.notes += 1;
    const id = `${actor.uri}/mentions/${this.notes}`;
    const address = `@${recipient.replace(/.*\/users\//, '')}@${new URL(recipient).host}`;
    return JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${id}/activity`,
      type: 'Create',
      actor: claimedActor,
      object: {
        id,
        type: 'Note',
        attributedTo: claimedActor,
        content: `<p>${text}</p>`,
        to: [recipient],
        tag: [{ type: 'Mention', href: recipient, name: address }],
        published: new Date().toISOString(),
      },
    });
  }
  private notes = 0;

  get domain(): string {
    return new URL(this.url).host;
  }

  /** Creates (or re-keys, for rotation) an actor, with an RSA key or (as newer servers may) an Ed25519 one. */
  actor(username: string, keyType: 'rsa' | 'ed25519' = 'rsa'): FakeActor {
    const pair =
      keyType === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
    const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const uri = `${this.url}/users/${username}`;
    const actor = { username, uri, keyId: `${uri}#main-key`, publicKeyPem: publicKey, privateKeyPem: privateKey };
    this.actors.set(username, actor);
    return actor;
  }

  /**
   * Gives `actor` an Ed25519 key besides its main one, listed as newer servers list it; returns the
   * actor as that key signs (same actor, the key's id).
   */
  async extraKey(actor: FakeActor, style: 'multikey' | 'misskey'): Promise<FakeActor> {
    const pair = generateKeyPairSync('ed25519');
    const id = `${actor.uri}#${style}-ed25519`;
    const publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    actor.extraKeys = [...(actor.extraKeys ?? []), { id, publicKeyPem, style }];
    if (style === 'multikey') await base58(); // loaded before document() needs it
    return {
      ...actor,
      keyId: id,
      publicKeyPem,
      privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  }

  document(actor: FakeActor): object {
    const extra = actor.extraKeys ?? [];
    const multikeys = extra.filter((key) => key.style === 'multikey');
    const misskey = extra.filter((key) => key.style === 'misskey');
    return {
      ...(multikeys.length
        ? {
            assertionMethod: multikeys.map((key) => ({
              id: key.id,
              type: 'Multikey',
              controller: actor.uri,
              publicKeyMultibase: multibaseOf(key.publicKeyPem),
            })),
          }
        : {}),
      ...(misskey.length
        ? {
            additionalPublicKeys: misskey.map((key) => ({
              id: key.id,
              type: 'Key',
              owner: actor.uri,
              publicKeyPem: key.publicKeyPem,
            })),
          }
        : {}),
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id: actor.uri,
      type: 'Person',
      preferredUsername: actor.username,
      name: actor.username,
      inbox: `${actor.uri}/inbox`,
      outbox: `${actor.uri}/outbox`,
      followers: `${actor.uri}/followers`,
      publicKey: { id: actor.keyId, owner: actor.uri, publicKeyPem: actor.publicKeyPem },
    };
  }

  /**
   * POSTs `body` to `url` signed by `actor`. `date` overrides the Date header (signed as given);
   * `sendInstead` replaces the body after signing (tampering).
   */
  post(
    url: string,
    actor: FakeActor | null,
    body: string,
    options: { date?: Date; sendInstead?: string } = {},
  ): Promise<{ status: number; text: string }> {
    const target = new URL(url);
    return new Promise((resolve, reject) => {
      const sent = Buffer.from(options.sendInstead ?? body);
      const request = http.request(
        target,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/activity+json',
            digest: digestHeader(Buffer.from(body)),
            'content-length': String(sent.length),
            date: (options.date ?? new Date()).toUTCString(),
          },
        },
        (response) => void readAnswer(response).then(resolve, reject),
      );
      request.on('error', reject);
      if (actor) {
        httpSignature.signRequest(request, {
          keyId: actor.keyId,
          key: actor.privateKeyPem,
          algorithm: 'rsa-sha256',
          authorizationHeaderName: 'Signature',
          headers: ['(request-target)', 'host', 'date', 'digest', 'content-type'],
        });
      }
      request.end(sent);
    });
  }

  /**
   * POSTs `body` to `url` with an RFC 9421 message signature made by hand (the signature base
   * written out as the RFC lays it out, signed with node:crypto), covering `components` (default:
   * what newer servers cover). Options make one thing wrong on purpose.
   */
  postRfc9421(
    url: string,
    actor: FakeActor,
    body: string,
    options: {
      components?: string[];
      created?: Date;
      /** The alg parameter; null leaves it out (the key then says which). */
      alg?: string | null;
      /** Sign with this private key instead of the actor's (keyid stays the actor's). */
      signingKeyPem?: string;
      sendInstead?: string;
      contentDigest?: string;
      method?: 'POST' | 'GET';
    } = {},
  ): Promise<{ status: number; text: string }> {
    const target = new URL(url);
    const method = options.method ?? 'POST';
    const sent = method === 'GET' ? null : Buffer.from(options.sendInstead ?? body);
    const headers: Record<string, string> = {
      host: target.host,
      date: new Date().toUTCString(),
      accept: 'application/activity+json',
    };
    if (sent) {
      headers['content-type'] = 'application/activity+json';
      headers['content-digest'] =
        options.contentDigest ?? `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
      headers['content-length'] = String(sent.length);
    }
    const components = options.components ?? [
      '@method',
      '@target-uri',
      ...(sent ? ['content-digest', 'content-type'] : []),
      'date',
    ];
    const value = (component: string): string => {
      if (component === '@method') return method;
      if (component === '@target-uri') return target.href;
      if (component === '@authority') return target.host;
      if (component === '@path') return target.pathname;
      return headers[component];
    };
    const isRsa = createPublicKey(actor.publicKeyPem).asymmetricKeyType === 'rsa';
    const alg = options.alg === undefined ? (isRsa ? 'rsa-v1_5-sha256' : 'ed25519') : options.alg;
    const created = Math.floor((options.created ?? new Date()).getTime() / 1000);
    const params =
      `(${components.map((c) => `"${c}"`).join(' ')});created=${created};keyid="${actor.keyId}"` +
      (alg ? `;alg="${alg}"` : '');
    const base = [...components.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${params}`].join('\n');
    const key = options.signingKeyPem ?? actor.privateKeyPem;
    // RSA signs SHA-256 with PKCS#1 v1.5 (rsa-v1_5-sha256); Ed25519 signs the bytes themselves.
    const signature = sign(createPrivateKey(key).asymmetricKeyType === 'rsa' ? 'sha256' : null, Buffer.from(base), key);
    headers['signature-input'] = `sig1=${params}`;
    headers.signature = `sig1=:${signature.toString('base64')}:`;
    return new Promise((resolve, reject) => {
      const request = http.request(
        target,
        { method, headers },
        (response) => void readAnswer(response).then(resolve, reject),
      );
      request.on('error', reject);
      request.end(sent ?? undefined);
    });
  }

  /** GETs `url` as ActivityPub JSON, signed by `actor` as a peer's fetch is (no body, no digest). */
  get(url: string, actor: FakeActor): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        new URL(url),
        { method: 'GET', headers: { accept: 'application/activity+json', date: new Date().toUTCString() } },
        (response) => void readAnswer(response).then(resolve, reject),
      );
      request.on('error', reject);
      httpSignature.signRequest(request, {
        keyId: actor.keyId,
        key: actor.privateKeyPem,
        algorithm: 'rsa-sha256',
        authorizationHeaderName: 'Signature',
        headers: ['(request-target)', 'host', 'date'],
      });
      request.end();
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
