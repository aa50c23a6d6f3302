/**
 * The check from outside, as near as the box can make it: its own probe sent to https://<name>,
 * connecting to the external address (so it crosses the router's NAT loopback, not the home
 * network's short cut). A router without NAT loopback leaves the check unable to judge; the CA's
 * validation from the internet already went through port 80. Over IPv6 (no public IPv4 address:
 * carrier-grade NAT) it connects to the box's own global address: the answer proves the name and
 * the certificate lead to this box, and the CA's validation proved the pinhole.
 */
import { isIPv6 } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { ReachabilityCheck } from '../social/onboarding/reachability.js';
import { httpGet } from './http-get.js';
import type { Step } from './model.js';

export function selfCheck(
  reachability: ReachabilityCheck,
  extraCa: string | null,
): (name: string, externalAddress: string | null) => Promise<Step> {
  return async (name, externalAddress) => {
    const family = externalAddress && isIPv6(externalAddress) ? 6 : 4;
    const lookup: LookupFunction | undefined = externalAddress
      ? (_host, options, callback) => {
          if (options.all) callback(null, [{ address: externalAddress, family }]);
          else callback(null, externalAddress, family);
        }
      : undefined;
    const report = await reachability.check(`https://${name}`, async (url, init) => {
      void init;
      try {
        const answer = await httpGet(url, { lookup, extraCa, servername: name, timeoutMs: 8000 });
        return new Response(answer.body, { status: answer.status });
      } catch (error) {
        // The check reads the reason as fetch gives it: the cause's code.
        throw new Error((error as Error).message, { cause: error });
      }
    });
    if (report.federation_ready)
      return {
        state: 'ok',
        detail:
          family === 6
            ? `https://${name} answers at the box's IPv6 address ${externalAddress}`
            : `https://${name} answers from the internet side`,
      };
    if (report.problem === 'refused' || report.problem === 'timeout' || report.problem === 'unreachable')
      return {
        state: 'pending',
        detail:
          'could not judge from inside the home: the router does not loop its public address back. Open the address on a phone with Wi-Fi off to be sure',
      };
    return { state: 'failed', detail: report.summary };
  };
}
