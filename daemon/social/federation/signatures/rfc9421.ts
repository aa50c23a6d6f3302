/**
 * Incoming RFC 9421 HTTP Message Signatures (newer servers try them before draft-cavage): the
 * first signature of Signature-Input, covering what newer servers cover (`@method`, the target as
 * `@target-uri` or `@authority` and `@path`, `content-digest` on a body), its `created` (and a
 * covered Date) inside the same window as a cavage Date, the Content-Digest (RFC 9530, sha-256 or
 * sha-512) matched to the body; the signature base and the check itself by `http-message-signatures`,
 * with rsa-v1_5-sha256 or ed25519 (named by `alg`, or by the key when `alg` is absent).
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { lazy } from '../../../lib/on-first-use.js';
import { checkFresh, MAX_AGE_MS, MAX_AHEAD_MS, SignatureError, type InboundSignature } from './inbound.js';

const structuredHeaders = lazy('structured-headers', () => import('structured-headers'));
const messageSignatures = lazy('http-message-signatures', () => import('http-message-signatures'));

const ALGORITHMS = ['rsa-v1_5-sha256', 'ed25519'] as const;
type Algorithm = (typeof ALGORITHMS)[number];
const DIGESTS: Record<string, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

type Headers = Record<string, string | string[]>;

/**
 * Checks everything but the key itself. `scheme` is the box's public one (http: or https:): the
 * signer signed the URI it asked for, which a TLS proxy in front of the box does not show.
 */
export async function readMessageSignature(
  request: IncomingMessage,
  body: Buffer | null,
  now: number,
  scheme: string,
): Promise<InboundSignature> {
  const sf = await structuredHeaders();
  const inputs = parseDictionary(sf, request.headers['signature-input'], 'Signature-Input');
  const signatures = parseDictionary(sf, request.headers.signature, 'Signature');
  const [label, input] = [...inputs][0] ?? [];
  if (!label || !sf.isInnerList(input)) throw new SignatureError('Signature-Input names no signature');
  const signature = signatures.get(label);
  if (!signature || !(signature[0] instanceof ArrayBuffer))
    throw new SignatureError(`no signature ${label} for its Signature-Input`);

  const covered = input[0].map(([name]) => String(name));
  const params: ReadonlyMap<string, unknown> = input[1];
  const missing = [
    ...(covered.includes('@method') ? [] : ['@method']),
    ...(covered.includes('@target-uri') || (covered.includes('@authority') && covered.includes('@path'))
      ? []
      : ['@target-uri (or @authority and @path)']),
    ...(body && !covered.includes('content-digest') ? ['content-digest'] : []),
  ];
  if (missing.length) throw new SignatureError(`signature does not cover ${missing.join(', ')}`);
  const keyId = params.get('keyid');
  if (typeof keyId !== 'string' || !keyId) throw new SignatureError('signature names no keyid');
  const alg = params.get('alg');
  if (alg !== undefined && !(ALGORITHMS as readonly unknown[]).includes(alg))
    throw new SignatureError(`signature algorithm ${JSON.stringify(alg)} is not supported`);
  const created = params.get('created');
  if (typeof created !== 'number') throw new SignatureError('signature has no created time');
  checkFresh(created * 1000, now, 'signature created time');
  const expires = params.get('expires');
  if (typeof expires === 'number' && expires * 1000 < now) throw new SignatureError('signature has expired');
  if (covered.includes('date')) checkFresh(Date.parse(String(request.headers.date)), now, 'signed request date');
  if (body) checkContentDigest(sf, request.headers['content-digest'], body);

  // Only the signature checked goes to the library (a request may carry others it cannot verify).
  const headers: Headers = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = value;
  headers['signature-input'] = sf.serializeDictionary(new Map([[label, input]]));
  headers.signature = sf.serializeDictionary(new Map([[label, signature]]));
  const message = {
    method: request.method ?? 'GET',
    url: new URL(request.url ?? '/', `${scheme}//${String(request.headers.host ?? '')}`).toString(),
    headers,
  };
  return {
    scheme: 'rfc9421',
    keyId,
    verify: (publicKeyPem) => verifyWith(message, publicKeyPem, alg as Algorithm | undefined, now),
  };
}

type StructuredHeaders = Awaited<ReturnType<typeof structuredHeaders>>;

function parseDictionary(sf: StructuredHeaders, value: string | string[] | undefined, name: string) {
  if (value === undefined) throw new SignatureError(`${name} is missing`);
  try {
    return sf.parseDictionary(Array.isArray(value) ? value.join(', ') : value);
  } catch (error) {
    throw new SignatureError(`${name} is malformed: ${(error as Error).message}`);
  }
}

/** RFC 9530: every sha-256 or sha-512 digest given matches the body, and there is one. */
function checkContentDigest(sf: StructuredHeaders, header: string | string[] | undefined, body: Buffer): void {
  const digests = parseDictionary(sf, header, 'Content-Digest');
  let checked = 0;
  for (const [algorithm, [value]] of digests) {
    const hash = DIGESTS[algorithm];
    if (!hash) continue;
    if (!(value instanceof ArrayBuffer)) throw new SignatureError(`Content-Digest ${algorithm} is not a byte sequence`);
    if (!createHash(hash).update(body).digest().equals(Buffer.from(value)))
      throw new SignatureError('Content-Digest does not match the body');
    checked += 1;
  }
  if (!checked) throw new SignatureError('Content-Digest has no sha-256 or sha-512 digest');
}

async function verifyWith(
  message: { method: string; url: string; headers: Headers },
  publicKeyPem: string,
  alg: Algorithm | undefined,
  now: number,
): Promise<boolean> {
  const { httpbis, createVerifier } = await messageSignatures();
  let keyAlg: Algorithm;
  try {
    const type = createPublicKey(publicKeyPem).asymmetricKeyType;
    if (type !== 'rsa' && type !== 'ed25519') return false;
    keyAlg = type === 'rsa' ? 'rsa-v1_5-sha256' : 'ed25519';
  } catch {
    return false;
  }
  if (alg && alg !== keyAlg) return false;
  try {
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: () => Promise.resolve({ algs: [keyAlg], verify: createVerifier(publicKeyPem, keyAlg) }),
        // The window was checked above against the daemon's clock; these only keep the library's own check as wide.
        notAfter: Math.floor((now + MAX_AHEAD_MS) / 1000),
        maxAge: MAX_AGE_MS / 1000,
      },
      message,
    );
    return verified === true;
  } catch {
    return false;
  }
}
