/**
 * The TLS context that trusts the system's roots and the extra roots of NESTBOX_ACME_CA_FILE, made
 * once per set of extra roots. Given as `ca` to each request instead, Node would parse and add the
 * hundred-odd system roots again for every connection: the flow's checks connect every cycle.
 */
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

const contexts = new Map<string, SecureContext>();

/** The context for `extraCa` (PEM); undefined without extra roots (Node's default context then serves). */
export function trustedContext(extraCa: string | null | undefined): SecureContext | undefined {
  if (!extraCa) return undefined;
  let context = contexts.get(extraCa);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, extraCa] });
    contexts.set(extraCa, context);
  }
  return context;
}
