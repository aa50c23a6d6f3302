/** Mentions in status text: `@user` and `@user@domain` (a port allowed in the domain, for loopback tests). */
const MENTION = /(?<![\w/@])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@([a-z0-9.-]+[a-z0-9](?::\d{1,5})?))?/gi;

export interface ParsedMention {
  match: string;
  username: string;
  domain: string | null;
}

export function parseMentions(text: string): ParsedMention[] {
  const seen = new Set<string>();
  const out: ParsedMention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const username = match[1];
    const domain = match[2] ?? null;
    const key = `${username.toLowerCase()}@${domain?.toLowerCase() ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ match: match[0], username, domain });
  }
  return out;
}
