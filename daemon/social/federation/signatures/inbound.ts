/**
 * What both inbound signature schemes share: the refusal, Mastodon's freshness window (12 hours
 * old at most, 1 hour ahead at most), and what a read signature offers the signer check.
 */
export const MAX_AGE_MS = 12 * 60 * 60 * 1000;
export const MAX_AHEAD_MS = 60 * 60 * 1000;

export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}

/** A signature whose form, freshness and digest were checked; the key is checked by `verify`. */
export interface InboundSignature {
  scheme: 'draft-cavage' | 'rfc9421';
  keyId: string;
  verify(publicKeyPem: string): Promise<boolean>;
}

/** Refuses a time (ms) outside the window around `now`. */
export function checkFresh(at: number, now: number, what: string): void {
  if (!Number.isFinite(at) || at < now - MAX_AGE_MS || at > now + MAX_AHEAD_MS) {
    throw new SignatureError(`${what} outside acceptable time window`);
  }
}
