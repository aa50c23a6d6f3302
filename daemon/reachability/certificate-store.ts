/**
 * The ACME account key and the current certificate with its key, under <data dir>/reachability
 * (0600, fsynced, never logged). A new certificate replaces the old one only once it is written.
 */
import { X509Certificate } from 'node:crypto';
import type { SecretFiles } from './secret-files.js';

export interface IssuedCertificate {
  name: string;
  /** The leaf and its chain, PEM. */
  chain: string;
  /** The certificate's private key, PEM. */
  key: string;
  notBefore: string;
  notAfter: string;
}

const ACCOUNT_KEY = 'acme-account.key';
const ACCOUNT_URL = 'acme-account.url';
const CERTIFICATE = 'certificate.json';

export class CertificateStore {
  constructor(private readonly files: SecretFiles) {}

  accountKey(): Promise<string | null> {
    return this.files.read(ACCOUNT_KEY);
  }

  saveAccountKey(pem: string): Promise<void> {
    return this.files.write(ACCOUNT_KEY, pem);
  }

  /** The account's URL at the CA (known after its registration). */
  async accountUrl(): Promise<string | null> {
    return (await this.files.read(ACCOUNT_URL))?.trim() || null;
  }

  saveAccountUrl(url: string): Promise<void> {
    return this.files.write(ACCOUNT_URL, url);
  }

  /** The kept certificate, or null when there is none or it cannot be read as one. */
  async certificate(): Promise<IssuedCertificate | null> {
    const text = await this.files.read(CERTIFICATE);
    if (!text) return null;
    try {
      const stored = JSON.parse(text) as IssuedCertificate;
      // Dates from the certificate itself, not from what was written beside it.
      const leaf = new X509Certificate(stored.chain);
      return {
        ...stored,
        notBefore: new Date(leaf.validFrom).toISOString(),
        notAfter: new Date(leaf.validTo).toISOString(),
      };
    } catch {
      return null;
    }
  }

  saveCertificate(issued: IssuedCertificate): Promise<void> {
    return this.files.write(CERTIFICATE, JSON.stringify(issued));
  }

  removeCertificate(): Promise<void> {
    return this.files.remove(CERTIFICATE);
  }
}

/** Renewal starts at two thirds of the lifetime. */
export function renewalDue(cert: Pick<IssuedCertificate, 'notBefore' | 'notAfter'>, now: number): boolean {
  const start = Date.parse(cert.notBefore);
  const end = Date.parse(cert.notAfter);
  return now >= start + ((end - start) * 2) / 3;
}

/** Less than a sixth of the lifetime left: the certificate is about to expire. */
export function nearlyExpired(cert: Pick<IssuedCertificate, 'notBefore' | 'notAfter'>, now: number): boolean {
  const start = Date.parse(cert.notBefore);
  const end = Date.parse(cert.notAfter);
  return end - now < (end - start) / 6;
}
