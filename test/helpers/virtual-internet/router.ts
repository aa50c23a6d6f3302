/**
 * The home router's configuration in the virtual internet: the nftables ruleset (forwarding,
 * masquerade on the WAN, and the chains miniupnpd's nftables backend fills: `miniupnpd` in the
 * forward hook, `prerouting_miniupnpd`/`postrouting_miniupnpd` in the NAT hooks, all in table
 * `inet filter`, as Debian's /etc/miniupnpd/nft_init.sh makes them) and miniupnpd's own file.
 * IPv6 is routed, not translated: like a home router's default firewall, the forward chain drops
 * what comes in from the WAN unless it answers a connection from inside or a pinhole miniupnpd
 * added (UPnP IGDv2 or PCP) accepts it in the `miniupnpd` chain.
 */
export function routerRuleset(wan: string): string {
  return `table inet filter {
  chain forward {
    type filter hook forward priority 0; policy accept;
    jump miniupnpd
    meta nfproto ipv6 iifname "${wan}" ct state established,related accept
    meta nfproto ipv6 iifname "${wan}" icmpv6 type { destination-unreachable, packet-too-big, time-exceeded, parameter-problem } accept
    meta nfproto ipv6 iifname "${wan}" drop
  }
  chain miniupnpd {
  }
  chain prerouting {
    type nat hook prerouting priority -100; policy accept;
    jump prerouting_miniupnpd
  }
  chain postrouting {
    type nat hook postrouting priority 100; policy accept;
    jump postrouting_miniupnpd
    oifname "${wan}" masquerade
  }
  chain prerouting_miniupnpd {
  }
  chain postrouting_miniupnpd {
  }
}
`;
}

/** UPnP IGD and NAT-PMP/PCP for the home network. */
export function miniupnpdConfig(options: { wan: string; lan: string; lanNet: string }): string {
  const on = 'yes';
  return [
    `ext_ifname=${options.wan}`,
    `listening_ip=${options.lan}`,
    'http_port=5000',
    `enable_upnp=${on}`,
    `enable_natpmp=${on}`,
    // A device may only forward ports to itself, as home routers allow by default.
    'secure_mode=yes',
    'system_uptime=yes',
    'uuid=3a7c5e4e-1d2b-4c3d-9e8f-0a1b2c3d4e5f',
    `allow 1-65535 ${options.lanNet} 1-65535`,
    'deny 0-65535 0.0.0.0/0 0-65535',
    '',
  ].join('\n');
}
