/**
 * Certificates from an ACME server (RFC 8555) through acme-client: the account key is made once
 * and kept; each order proves the name with HTTP-01 (the token served on port 80 by the box's own
 * HTTP listener) or DNS-01 when the owner's DNS takes updates. The box's lookups go to the lease's
 * DNS servers and the extra roots of NESTBOX_ACME_CA_FILE are trusted beside the system's.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ChallengeResponder } from './challenges.js';
import type { CertificateStore, IssuedCertificate } from './certificate-store.js';
import { trustedContext } from './trusted-roots.js';

type AcmeModule = typeof import('acme-client');

export interface AcmeIssuerOptions {
  directoryUrl: string;
  /** Extra trusted roots (PEM), or null. */
  extraCa: string | null;
  lookup: LookupFunction;
  store: CertificateStore;
  challenges: ChallengeResponder;
  /**
   * DNS-01, asked at each order: the writer of the TXT record `_acme-challenge.<name>` (null
   * removes it) while the owner's DNS takes updates (RFC 2136); null for HTTP-01 on port 80.
   */
  dnsTxt?: () => ((name: string, value: string | null) => Promise<void>) | null;
}

export class AcmeError extends Error {
  constructor(
    message: string,
    /** The CA's problem type (urn:ietf:params:acme:error:…), when it gave one. */
    readonly problem: string | null,
    /** The challenge the order was proving the name with. */
    readonly challenge: ChallengeType | null = null,
  ) {
    super(message);
    this.name = 'AcmeError';
  }
}

export type ChallengeType = 'http-01' | 'dns-01';

export class AcmeIssuer {
  private acme: AcmeModule | null = null;
  /** How the last order proved the name (the flow's certificate step says it). */
  lastChallenge: ChallengeType | null = null;

  constructor(private readonly options: AcmeIssuerOptions) {}

  private async module(): Promise<AcmeModule> {
    if (this.acme) return this.acme;
    // Loaded on first use: a box that never goes public never pays for it.
    const acme = ((await import('acme-client')) as unknown as { default: AcmeModule }).default;
    acme.axios.defaults.proxy = false;
    acme.axios.defaults.timeout = 20_000;
    acme.axios.defaults.httpsAgent = new https.Agent({
      secureContext: trustedContext(this.options.extraCa),
      lookup: this.options.lookup,
      keepAlive: false,
    });
    acme.axios.defaults.httpAgent = new http.Agent({ lookup: this.options.lookup, keepAlive: false });
    this.acme = acme;
    return acme;
  }

  /** A new certificate for `name`; the store keeps it (and the account key) before this returns. */
  async issue(name: string): Promise<IssuedCertificate> {
    this.lastChallenge = null;
    const acme = await this.module();
    const { store } = this.options;
    let accountKey = await store.accountKey();
    if (!accountKey) {
      accountKey = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
      await store.saveAccountKey(accountKey);
    }
    const accountUrl = await store.accountUrl();
    const client = new acme.Client({
      directoryUrl: this.options.directoryUrl,
      accountKey,
      accountUrl: accountUrl ?? undefined,
      backoffAttempts: 6,
      backoffMin: 1000,
      backoffMax: 10_000,
    });
    const [key, csr] = await acme.crypto.createCsr(
      { commonName: name, altNames: [name] },
      await acme.crypto.createPrivateEcdsaKey('P-256'),
    );
    const dnsTxt = this.options.dnsTxt?.() ?? null;
    try {
      if (!accountUrl) await registerAccount(client, store);
      const chain = await client.auto({
        csr,
        termsOfServiceAgreed: true,
        // The CA checks from outside; the box's own look at its public name needs NAT loopback.
        skipChallengeVerification: true,
        challengePriority: dnsTxt ? ['dns-01', 'http-01'] : ['http-01'],
        challengeCreateFn: async (authz, challenge, keyAuthorization) => {
          this.lastChallenge = challenge.type === 'dns-01' ? 'dns-01' : 'http-01';
          if (challenge.type === 'dns-01' && dnsTxt)
            await dnsTxt(authz.identifier.value, keyAuthorization).catch((error: Error) => {
              throw new AcmeError(`the DNS-01 record could not be written: ${error.message}`, null, 'dns-01');
            });
          else this.options.challenges.add(challenge.token, keyAuthorization);
        },
        challengeRemoveFn: async (authz, challenge) => {
          if (challenge.type === 'dns-01' && dnsTxt) await dnsTxt(authz.identifier.value, null);
          else this.options.challenges.remove(challenge.token);
        },
      });
      const info = acme.crypto.readCertificateInfo(chain);
      const issued: IssuedCertificate = {
        name,
        chain,
        key: key.toString(),
        notBefore: info.notBefore.toISOString(),
        notAfter: info.notAfter.toISOString(),
      };
      await store.saveCertificate(issued);
      return issued;
    } catch (error) {
      throw asAcmeError(error, this.lastChallenge);
    }
  }
}

/**
 * Registers the account once and keeps its URL, so later orders skip registration: with the URL
 * unknown, acme-client would send an account update that some CAs (pebble) refuse. A key the CA
 * already knows (its URL lost) is found again with onlyReturnExisting.
 */
async function registerAccount(client: InstanceType<AcmeModule['Client']>, store: CertificateStore): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
  } catch {
    await client.createAccount({ termsOfServiceAgreed: true });
  }
  await store.saveAccountUrl(client.getAccountUrl());
}

/** The CA's problem document in plain words (acme-client throws it as an Error with its detail). */
function asAcmeError(error: unknown, challenge: ChallengeType | null): AcmeError {
  if (error instanceof AcmeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const response = (error as { response?: { data?: { type?: string; detail?: string } } }).response?.data;
  const problem = response?.type ?? /urn:ietf:params:acme:error:[a-zA-Z]+/.exec(message)?.[0] ?? null;
  return new AcmeError(response?.detail ?? message, problem, challenge);
}

/**
 * HTTP-01 is the only proof without a DNS server that takes updates, and some internet providers
 * drop port 80 coming in: the owner is told so, and what lets the box do without it.
 */
const PORT_80_UNREACHABLE =
  'the certificate authority could not connect to the box on port 80 at this name: if the router forwards port 80, ' +
  'your internet provider may be blocking it. With your own DNS server (RFC 2136) the box proves the name through DNS ' +
  '(DNS-01) and needs no port 80';

/**
 * A failed challenge reaches us as its detail only (acme-client drops the problem type): how
 * Boulder ("Timeout during connect (likely firewall problem)", "Connection refused") and pebble (Go's
 * dial errors) word a validation that found nobody answering.
 */
const CONNECT_FAILURE =
  /timeout during connect|connection refused|connect: |deadline exceeded|i\/o timeout|no route to host|network is unreachable|connection reset/i;

/** What a CA's refusal means to the owner. */
export function describeAcmeFailure(error: unknown): string {
  if (!(error instanceof AcmeError)) return `the certificate could not be obtained: ${(error as Error).message}`;
  if (error.challenge === 'dns-01' && error.problem === null) return error.message;
  const kind =
    error.problem?.split(':').pop() ??
    (error.challenge === 'http-01' && CONNECT_FAILURE.test(error.message) ? 'connection' : undefined);
  switch (kind) {
    case 'rateLimited':
      return `the certificate authority is rate-limiting this name; the box tries again later (${error.message})`;
    case 'connection':
    case 'unauthorized':
    case 'incorrectResponse':
      if (error.challenge === 'dns-01')
        return `the certificate authority did not find the right DNS-01 record (_acme-challenge) for this name: ${error.message}`;
      if (kind === 'connection') return PORT_80_UNREACHABLE + ` (${error.message})`;
      return `the certificate authority reached a server at this name on port 80, but not the box: ${error.message}`;
    case 'dns':
      return `the certificate authority could not look the name (or its DNS-01 record) up: ${error.message}`;
    case 'badNonce':
    case 'serverInternal':
      return `the certificate authority had a problem; the box tries again later (${error.message})`;
    default:
      return `the certificate authority refused: ${error.message}`;
  }
}
