/**
 * Outgoing HTTP signatures as Mastodon makes them (draft-cavage, rsa-sha256, the `Signature`
 * header over (request-target), host, date, and digest for bodies). The crypto is the library's.
 */
import { createHash } from 'node:crypto';
import type { ClientRequest } from 'node:http';
import type httpSignatureType from '@peertube/http-signature';
import { onFirstUse } from '../../../lib/on-first-use.js';

const httpSignature = onFirstUse<typeof httpSignatureType>('@peertube/http-signature');

export interface SigningKey {
  /** The actor's key id: `<actor uri>#main-key`. */
  keyId: string;
  privateKeyPem: string;
}

export const SIGNED_POST_HEADERS = ['(request-target)', 'host', 'date', 'digest', 'content-type'];
export const SIGNED_GET_HEADERS = ['(request-target)', 'host', 'date', 'accept'];

/** The Digest header value of a body (RFC 3230, SHA-256), as Mastodon sends and checks it. */
export function digestHeader(body: Buffer | string): string {
  return `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
}

/** Adds Date (when missing) and Signature to a request whose other headers are already set. */
export function signRequest(request: ClientRequest, key: SigningKey, hasBody: boolean): void {
  httpSignature().signRequest(request, {
    keyId: key.keyId,
    key: key.privateKeyPem,
    algorithm: 'rsa-sha256',
    headers: hasBody ? SIGNED_POST_HEADERS : SIGNED_GET_HEADERS,
    authorizationHeaderName: 'Signature',
  });
}
