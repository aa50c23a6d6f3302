/**
 * Can other servers reach the box at its public address? The box sends a one-time token to its own
 * address and looks for it to come back: that proves the name, the port forwarding, the proxy and
 * the certificate lead to this box and not another. It is asked from inside the home, so a router
 * that does not loop its public address back fails it although the outside could reach the box;
 * the answer says so. How the request goes out is given (tests keep it on loopback).
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

export type ProbeFetch = (url: string, init: { signal: AbortSignal; redirect: 'manual' }) => Promise<Response>;

export type ReachabilityProblem =
  | 'not_https'
  | 'home_address'
  | 'no_such_name'
  | 'refused'
  | 'timeout'
  | 'certificate'
  | 'other_server'
  | 'unreachable';

export interface ReachabilityReport {
  url: string;
  /** The address led back to this box. */
  reachable: boolean;
  https: boolean;
  /** Reachable over https at a public name: what federation needs. */
  federation_ready: boolean;
  problem: ReachabilityProblem | null;
  /** What happened, in plain words. */
  summary: string;
  /** The usual ways to a public https address, when the box does not have one yet. */
  advice: string[];
  note: string;
}

export const PROBE_PATH = '/api/nestbox/v1/reachability';
const TOKEN_TTL_MS = 60_000;

const ADVICE = [
  "A domain with port forwarding: give your home a name (your own domain, or a free dynamic-DNS name that follows your home's changing IP address), forward port 443 on your router to the box, and run a reverse proxy with a certificate in front of Nestbox (Caddy, or nginx with Let's Encrypt) that passes requests to it.",
  'A tunnel: a tunnel service (Cloudflare Tunnel, Tailscale Funnel, or a small rented server with WireGuard) gives the box a public https address without opening any port on your router.',
  'Then enter that https:// address as the public address and check again. Without one the box works for everyone at home, but other servers cannot follow or answer your accounts.',
];
const NOTE =
  'This check is made from the box itself. If your router does not loop its public address back into the home network, it can fail although the box is reachable from outside: open the address on your phone with Wi-Fi off to be sure.';

const SUMMARIES: Record<ReachabilityProblem, string> = {
  not_https:
    'The box answers at this address, but over plain http. Other servers talk to Mastodon-compatible servers over https only, so they cannot reach it yet.',
  home_address:
    'This is an address inside your home network: devices at home reach the box there, other servers on the internet cannot.',
  no_such_name: 'This name does not exist (yet): no DNS record points it anywhere.',
  refused: 'Nothing answers at this address: the port is closed or not forwarded to the box.',
  timeout: 'The address did not answer in time: a router or firewall is probably dropping the connection.',
  certificate:
    'Something answers with a certificate that is not valid for this name: other servers will refuse it. Check the proxy or tunnel’s certificate.',
  other_server:
    'Something answers at this address, but it is not this box: the name or the forwarding leads elsewhere.',
  unreachable: 'The address could not be reached.',
};

export class ReachabilityCheck {
  private readonly tokens = new Map<string, number>();

  constructor(
    private readonly fetchProbe: ProbeFetch,
    private readonly now: () => number = Date.now,
    private readonly timeoutMs = 8_000,
  ) {}

  /** A probe arrived: was it one of this box's own, still waiting? */
  owns(token: string): boolean {
    const sent = this.tokens.get(token);
    return sent !== undefined && this.now() - sent < TOKEN_TTL_MS;
  }

  /** `via` sends the probe another way than the constructor's (the reachability flow's, through the router). */
  async check(baseUrl: string, via: ProbeFetch = this.fetchProbe): Promise<ReachabilityReport> {
    const url = new URL(baseUrl);
    const https = url.protocol === 'https:';
    const token = randomBytes(16).toString('hex');
    this.tokens.set(token, this.now());
    let problem: ReachabilityProblem | null = null;
    try {
      const answer = await via(`${baseUrl}${PROBE_PATH}/${token}`, {
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
      const body = answer.ok ? ((await answer.json().catch(() => null)) as { token?: string } | null) : null;
      if (body?.token !== token) problem = 'other_server';
    } catch (error) {
      problem = failureKind(error);
    } finally {
      this.tokens.delete(token);
    }
    const reachable = problem === null;
    if (reachable && !https) problem = 'not_https';
    else if (reachable && isHomeAddress(url.hostname)) problem = 'home_address';
    const ready = reachable && problem === null;
    return {
      url: baseUrl,
      reachable,
      https,
      federation_ready: ready,
      problem,
      summary: ready
        ? 'Other servers can reach the box at this address over https: federation can work.'
        : SUMMARIES[problem!],
      advice: ready ? [] : ADVICE,
      note: NOTE,
    };
  }
}

function failureKind(error: unknown): ReachabilityProblem {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  const code = String(((error as { cause?: { code?: string } })?.cause ?? {}).code ?? '');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'no_such_name';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  if (/CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY/.test(code)) return 'certificate';
  return 'unreachable';
}

/** Names and addresses only the home network (or the box) can reach. */
export function isHomeAddress(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.local') || host.endsWith('.lan') || host.endsWith('.home.arpa'))
    return true;
  if (isIP(host) === 4) {
    const [a, b] = host.split('.').map(Number);
    return (
      a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
    );
  }
  if (isIP(host) === 6) return host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  return false;
}
