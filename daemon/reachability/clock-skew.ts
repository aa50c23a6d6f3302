/**
 * The box's clock against the certificate authority's, read from a certificate just issued: its
 * notBefore is the authority's clock at issuance, set back by at most an hour (Let's Encrypt's
 * Boulder backdates by an hour; pebble not at all). A Pi has no real-time clock and starts with the
 * time it was shut down at until a time server answers; with that clock a renewal planned on the
 * box's time would run at every cycle (clock ahead) or after the certificate expired (behind).
 */
const BACKDATE_MAX_MS = 3600_000;
const TOLERANCE_MS = 5 * 60_000;

/**
 * How far the box's clock is ahead of the authority's (negative: behind), in ms, or 0 within the
 * tolerance. When the box is ahead, the backdate hides up to an hour of it: the figure is the least
 * it is ahead by.
 */
export function clockSkewMs(notBefore: string, receivedAt: number): number {
  const issuedAt = Date.parse(notBefore);
  if (Number.isNaN(issuedAt)) return 0;
  if (receivedAt < issuedAt - TOLERANCE_MS) return receivedAt - issuedAt;
  if (receivedAt > issuedAt + BACKDATE_MAX_MS + TOLERANCE_MS) return receivedAt - issuedAt - BACKDATE_MAX_MS;
  return 0;
}

/** The skew in the owner's words, or null when the clocks agree. */
export function clockSkewWords(skewMs: number): string | null {
  if (skewMs === 0) return null;
  const minutes = Math.round(Math.abs(skewMs) / 60_000);
  const amount = minutes >= 120 ? `${Math.round(minutes / 60)} hours` : `${minutes} minutes`;
  const way = skewMs > 0 ? 'ahead of' : 'behind';
  return (
    `the box's clock is ${skewMs > 0 ? 'at least ' : ''}${amount} ${way} the certificate authority's: ` +
    "check the box's time (is it reaching a time server?); renewals follow the authority's clock meanwhile"
  );
}
