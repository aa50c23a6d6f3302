/**
 * Which address records the DNS step must change: each family's record is set when its address
 * changed, and an AAAA record the box published is withdrawn once the box has no IPv6 address to
 * publish (none left, or its pinholes cannot be opened), so the name never keeps pointing IPv6
 * clients at a dead address. Only what the box itself published is withdrawn: a name it never gave
 * an AAAA record keeps whatever the owner put there.
 */

/** The addresses the name should point at: the external IPv4 one and the box's own IPv6 one. */
export interface PublicAddresses {
  ipv4: string | null;
  ipv6: string | null;
}

export interface RecordPlan {
  /** The addresses to send: each non-null one replaces its family's record. */
  publish: PublicAddresses;
  /** The IPv6 address whose AAAA record goes (the box published it and has no IPv6 address now). */
  withdrawIpv6: string | null;
}

/** What to send, given what was last accepted (null: nothing yet); null when nothing changed. */
export function planRecords(published: PublicAddresses | null, wanted: PublicAddresses): RecordPlan | null {
  const withdrawIpv6 = published?.ipv6 && !wanted.ipv6 ? published.ipv6 : null;
  if (!withdrawIpv6 && published?.ipv4 === wanted.ipv4 && published.ipv6 === wanted.ipv6) return null;
  return { publish: wanted, withdrawIpv6 };
}
