/**
 * The interface operations the network layer needs, carried out by iproute2's `ip` (the tool
 * every Debian box has): no netlink written by hand. Each throws an IpError with ip's own words.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class IpError extends Error {
  constructor(
    message: string,
    readonly missingInterface: boolean,
    readonly notInstalled: boolean,
  ) {
    super(message);
    this.name = 'IpError';
  }
}

export class IpTool {
  constructor(private readonly command = 'ip') {}

  private async ip(args: string[]): Promise<string> {
    try {
      const { stdout } = await run(this.command, args, { timeout: 5000 });
      return stdout;
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: string };
      if (failure.code === 'ENOENT') throw new IpError(`${this.command} (iproute2) is not installed`, false, true);
      const said = (failure.stderr ?? failure.message).trim().split('\n')[0] ?? '';
      throw new IpError(`ip ${args.join(' ')}: ${said}`, /does not exist|Cannot find device/i.test(said), false);
    }
  }

  async exists(iface: string): Promise<boolean> {
    try {
      await this.ip(['link', 'show', 'dev', iface]);
      return true;
    } catch (error) {
      if (error instanceof IpError && error.missingInterface) return false;
      throw error;
    }
  }

  /** The interface's index (a re-created interface has a new one) and MAC. */
  async link(iface: string): Promise<{ ifindex: number; mac: string | null }> {
    const out = await this.ip(['-o', 'link', 'show', 'dev', iface]);
    return {
      ifindex: Number(/^(\d+):/.exec(out)?.[1] ?? 0),
      mac: /link\/ether ([0-9a-f:]{17})/.exec(out)?.[1] ?? null,
    };
  }

  async mac(iface: string): Promise<string | null> {
    return (await this.link(iface)).mac;
  }

  /**
   * Sets the MAC (the link must be down for that on most drivers; ESP-Hosted's refuses to come up
   * without one) and brings the link up. Returns the index of the interface it found.
   */
  async setMacAndUp(iface: string, mac: string | null): Promise<number> {
    const found = await this.link(iface);
    if (mac && found.mac !== mac.toLowerCase()) {
      await this.ip(['link', 'set', 'dev', iface, 'down']);
      await this.ip(['link', 'set', 'dev', iface, 'address', mac.toLowerCase()]);
    }
    await this.ip(['link', 'set', 'dev', iface, 'up']);
    return found.ifindex;
  }

  async addAddress(iface: string, cidr: string): Promise<void> {
    await this.ip(['addr', 'replace', cidr, 'dev', iface]);
  }

  async flushAddresses(iface: string): Promise<void> {
    await this.ip(['-4', 'addr', 'flush', 'dev', iface]);
  }

  /** IPv4 addresses (CIDR) on the interface. */
  async addresses(iface: string): Promise<string[]> {
    const out = await this.ip(['-4', '-o', 'addr', 'show', 'dev', iface]);
    return [...out.matchAll(/inet (\d+\.\d+\.\d+\.\d+\/\d+)/g)].map((match) => match[1]);
  }
}
