/**
 * Incoming draft-cavage HTTP signatures: the Signature header parsed and checked by the library,
 * the signed headers required (request-target, host, date, and digest on a body), the Digest
 * matched to the body, and the Date inside the window (inbound.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { ParsedSignature } from '@peertube/http-signature';
import type httpSignatureType from '@peertube/http-signature';
import { onFirstUse } from '../../../lib/on-first-use.js';
import { digestHeader } from './sign.js';
import { checkFresh, MAX_AGE_MS, SignatureError, type InboundSignature } from './inbound.js';

const httpSignature = onFirstUse<typeof httpSignatureType>('@peertube/http-signature');
const ALGORITHMS = ['rsa-sha256', 'hs2019'];

/** Checks everything but the key itself. */
export function readCavageSignature(request: IncomingMessage, body: Buffer | null, now = Date.now()): InboundSignature {
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
  checkFresh(Date.parse(String(request.headers.date)), now, 'signed request date');
  if (body) {
    const expected = digestHeader(body);
    const sent = String(request.headers.digest ?? '')
      .split(',')
      .map((part) => part.trim())
      .find((part) => part.slice(0, 8).toLowerCase() === 'sha-256=');
    if (!sent || `SHA-256=${sent.slice(8)}` !== expected) throw new SignatureError('digest does not match the body');
  }
  return {
    scheme: 'draft-cavage',
    keyId: parsed.keyId,
    verify: (publicKeyPem) => Promise.resolve(verifyWithKey(parsed, publicKeyPem)),
  };
}

function verifyWithKey(parsed: ParsedSignature, publicKeyPem: string): boolean {
  try {
    return httpSignature().verifySignature(parsed, publicKeyPem);
  } catch {
    return false;
  }
}
