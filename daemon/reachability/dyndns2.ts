/**
 * The dyndns2 update protocol that routers and most dynamic-DNS providers speak: one GET of
 * <url>?hostname=<name>&myip=<address> with HTTP basic authentication; the first word of the answer
 * says what happened (good, nochg, badauth, nohost, …). With IPv6, `myip` lists both addresses
 * comma-separated (IPv4 first), as Dyn's update API and No-IP accept them and ddclient sends them.
 * The protocol has no delete: an AAAA record the box published is withdrawn with an empty `myipv6`
 * beside the IPv4 address alone, which deSEC documents as deleting the AAAA record; Dyn drops the
 * AAAA record of an update that names only an IPv4 address.
 */
import type { Dyndns2Settings } from './model.js';
import { httpGet, type HttpGetOptions } from './http-get.js';

export interface DnsUpdateOutcome {
  ok: boolean;
  /** The provider's answer in plain words. */
  detail: string;
  /** The provider asked not to be asked again without a change (badauth, abuse, …). */
  permanent: boolean;
}

const ANSWERS: Record<string, { ok: boolean; permanent: boolean; words: string }> = {
  good: { ok: true, permanent: false, words: 'the provider updated the name' },
  nochg: { ok: true, permanent: false, words: 'the provider already had this address' },
  badauth: { ok: false, permanent: true, words: 'the provider refused the user name or password' },
  notfqdn: { ok: false, permanent: true, words: 'the provider says the name is not a full domain name' },
  nohost: { ok: false, permanent: true, words: 'the provider does not know this name in your account' },
  numhost: { ok: false, permanent: true, words: 'the provider refused: too many names in one update' },
  abuse: { ok: false, permanent: true, words: 'the provider blocked updates of this name for abuse' },
  badagent: { ok: false, permanent: true, words: 'the provider refused this client' },
  '!donator': { ok: false, permanent: true, words: 'the provider reserves this feature to paying accounts' },
  dnserr: { ok: false, permanent: false, words: 'the provider had a DNS error' },
  '911': { ok: false, permanent: false, words: 'the provider is having trouble' },
};

export async function dyndns2Update(
  settings: Dyndns2Settings,
  name: string,
  address: string | string[],
  options: HttpGetOptions,
  withdrawIpv6 = false,
): Promise<DnsUpdateOutcome> {
  const url = new URL(settings.url);
  url.searchParams.set('hostname', name);
  url.searchParams.set('myip', Array.isArray(address) ? address.join(',') : address);
  if (withdrawIpv6) url.searchParams.set('myipv6', '');
  url.username = encodeURIComponent(settings.username);
  url.password = encodeURIComponent(settings.password);
  let answer;
  try {
    answer = await httpGet(url.toString(), options);
  } catch (error) {
    return { ok: false, permanent: false, detail: `the provider could not be reached (${(error as Error).message})` };
  }
  const word = answer.body.trim().split(/\s+/)[0] ?? '';
  const known = ANSWERS[word];
  if (answer.status === 401) return { ok: false, permanent: true, detail: ANSWERS.badauth.words };
  if (!known)
    return {
      ok: false,
      permanent: false,
      detail: `the provider answered ${answer.status} ${JSON.stringify(answer.body.trim().slice(0, 80))}`,
    };
  return { ok: known.ok, permanent: known.permanent, detail: known.words };
}
