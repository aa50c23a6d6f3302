/**
 * Incoming HTTP signatures: the Signature header parsed and checked by the library, the signed
 * headers required (request-target, host, date, and digest on a body), the Digest matched to the
 * body, and the Date inside Mastodon's window (12 hours old at most, 1 hour ahead at most).
 */
import type { IncomingMessage } from 'node:http';
import type { ParsedSignature } from '@peertube/http-signature';
import type httpSignatureType from '@peertube/http-signature';
import { onFirstUse } from '../../../lib/on-first-use.js';

const httpSignature = onFirstUse<typeof httpSignatureType>('@peertube/http-signature');
import { digestHeader } from './sign.js';

export const MAX_AGE_MS = 12 * 60 * 60 * 1000;
export const MAX_AHEAD_MS = 60 * 60 * 1000;
const ALGORITHMS = ['rsa-sha256', 'hs2019'];

export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}

/** Checks everything but the key itself; returns the parsed signature for verifyWithKey(). */
export function parseSignature(request: IncomingMessage, body: Buffer | null, now = Date.now()): ParsedSignature {
  if (!request.headers.signature) throw new SignatureError('request is not signed');
  const required = ['(request-target)', 'host', 'date', ...(body ? ['digest'] : [])];
  let parsed: ParsedSignature;
  try {
    parsed = httpSignature().parseRequest(request, {
      headers: required,
      clockSkew: MAX_AGE_MS / 1000,
      algorithms: ALGORITHMS,
      authorizationHeaderName: 'signature',
    });
  } catch (error) {
    throw new SignatureError(`bad signature: ${(error as Error).message}`);
  }
  const date = Date.parse(String(request.headers.date));
  if (!Number.isFinite(date) || date < now - MAX_AGE_MS || date > now + MAX_AHEAD_MS) {
    throw new SignatureError('signed request date outside acceptable time window');
  }
  if (body) {
    const expected = digestHeader(body);
    const sent = String(request.headers.digest ?? '')
      .split(',')
      .map((part) => part.trim())
      .find((part) => part.slice(0, 8).toLowerCase() === 'sha-256=');
    if (!sent || `SHA-256=${sent.slice(8)}` !== expected) throw new SignatureError('digest does not match the body');
  }
  return parsed;
}

export function verifyWithKey(parsed: ParsedSignature, publicKeyPem: string): boolean {
  try {
    return httpSignature().verifySignature(parsed, publicKeyPem);
  } catch {
    return false;
  }
}

/** The actor URI a key id names (`<actor>#main-key` → `<actor>`). */
export function keyOwnerGuess(keyId: string): string {
  return keyId.replace(/#.*$/, '');
}
