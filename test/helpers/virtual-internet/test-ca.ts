/**
 * A throwaway CA and a server certificate from it (openssl), for the ACME server's own HTTPS in
 * the virtual internet: pebble needs one, and the box trusts its root through NESTBOX_ACME_CA_FILE.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCa {
  caPem: string;
  certFile: string;
  keyFile: string;
}

export function makeTestCa(dir: string, name: string, addresses: string[]): TestCa {
  const file = (base: string) => join(dir, base);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Virtual internet test CA',
    '-keyout',
    file('test-ca.key'),
    '-out',
    file('test-ca.pem'),
  );
  writeFileSync(
    file('acme-server.ext'),
    `subjectAltName=DNS:${name},${addresses.map((a) => `IP:${a}`).join(',')}\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    file('acme-server.key'),
    '-out',
    file('acme-server.csr'),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    file('acme-server.csr'),
    '-CA',
    file('test-ca.pem'),
    '-CAkey',
    file('test-ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('acme-server.ext'),
    '-out',
    file('acme-server.pem'),
  );
  return {
    caPem: readFileSync(file('test-ca.pem'), 'utf8'),
    certFile: file('acme-server.pem'),
    keyFile: file('acme-server.key'),
  };
}
