/**
 * An actor's keys besides its `publicKey`: servers that sign with Ed25519 (RFC 9421, Fedify,
 * Misskey) publish that key as a Multikey in `assertionMethod` (FEP-521a: `publicKeyMultibase`,
 * base58btc of the ed25519-pub multicodec and the 32 key bytes) or in Misskey's
 * `additionalPublicKeys` (`publicKeyPem`). Only a key the actor itself controls counts.
 */
import { createPublicKey } from 'node:crypto';
import { lazy } from '../../../lib/on-first-use.js';
import { asArray, idOf, isObject, str } from '../objects/ld.js';

const base58 = lazy('multiformats', () => import('multiformats/bases/base58'));

/** The multicodec prefix of an Ed25519 public key (0xed, varint-encoded). */
const ED25519_PUB = Buffer.from([0xed, 0x01]);
/** The DER of an Ed25519 SubjectPublicKeyInfo before the 32 key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The PEM of the key `keyId` that `actorUri`'s document lists besides its main key; null when none. */
export async function additionalKeyPem(actorDoc: unknown, actorUri: string, keyId: string): Promise<string | null> {
  if (!isObject(actorDoc)) return null;
  for (const entry of asArray(actorDoc.assertionMethod)) {
    if (!isObject(entry) || str(entry.id) !== keyId || (idOf(entry.controller) ?? actorUri) !== actorUri) continue;
    const multibase = str(entry.publicKeyMultibase);
    if (multibase) return multikeyPem(multibase);
  }
  for (const entry of asArray(actorDoc.additionalPublicKeys)) {
    if (!isObject(entry) || str(entry.id) !== keyId || (idOf(entry.owner) ?? actorUri) !== actorUri) continue;
    const pem = str(entry.publicKeyPem);
    if (pem) return checkedPem(pem);
  }
  return null;
}

async function multikeyPem(multibase: string): Promise<string | null> {
  let bytes: Uint8Array;
  try {
    bytes = (await base58()).base58btc.decode(multibase);
  } catch {
    return null;
  }
  const raw = Buffer.from(bytes);
  if (raw.length !== 34 || !raw.subarray(0, 2).equals(ED25519_PUB)) return null;
  const der = Buffer.concat([ED25519_SPKI_PREFIX, raw.subarray(2)]);
  return createPublicKey({ key: der, format: 'der', type: 'spki' }).export({ type: 'spki', format: 'pem' }).toString();
}

function checkedPem(pem: string): string | null {
  try {
    createPublicKey(pem);
    return pem;
  } catch {
    return null;
  }
}
