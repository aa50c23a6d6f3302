/**
 * A fake ActivityPub server on loopback for signature tests: it serves actor documents with keys
 * it generates (and can rotate), and sends signed POSTs the way a peer would, or with one thing
 * wrong on purpose (a stale date, a body other than the one signed).
 */
import { generateKeyPairSync } from 'node:crypto';
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

  get domain(): string {
    return new URL(this.url).host;
  }

  /** Creates (or re-keys, for rotation) an actor. */
  actor(username: string): FakeActor {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const uri = `${this.url}/users/${username}`;
    const actor = { username, uri, keyId: `${uri}#main-key`, publicKeyPem: publicKey, privateKeyPem: privateKey };
    this.actors.set(username, actor);
    return actor;
  }

  document(actor: FakeActor): object {
    return {
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
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
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

  /** GETs `url` as ActivityPub JSON, signed by `actor` as a peer's fetch is (no body, no digest). */
  get(url: string, actor: FakeActor): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        new URL(url),
        { method: 'GET', headers: { accept: 'application/activity+json', date: new Date().toUTCString() } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
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
