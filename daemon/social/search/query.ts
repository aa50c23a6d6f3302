/**
 * Search queries: the `from:` operator split off, and the rest turned into an FTS5 expression of
 * quoted terms (so user text can never be FTS syntax), the last one a prefix.
 */
export interface ParsedQuery {
  text: string;
  from: string | null;
}

const FROM = /(?:^|\s)from:(\S*)/gi;

export function parseQuery(q: string): ParsedQuery {
  let from: string | null = null;
  const text = q
    .replace(FROM, (_all, value: string) => {
      from = value;
      return ' ';
    })
    .trim();
  return { text, from };
}

/** A from: value we support: `me`, `user`, `@user`, `user@domain` or `@user@domain` (domain may carry a port). */
export function parseFrom(value: string): { me: true } | { username: string; domain: string | null } | null {
  if (value.toLowerCase() === 'me') return { me: true };
  const match = /^@?([a-z0-9_]+(?:[a-z0-9_.-]*[a-z0-9_])?)(?:@([a-z0-9.-]+[a-z0-9](?::\d{1,5})?))?$/i.exec(value);
  return match ? { username: match[1], domain: match[2] ?? null } : null;
}

/** Control characters (NUL ends an FTS5 string) separate terms like spaces. */
export function ftsExpression(text: string, prefixLast = true): string | null {
  const terms = text
    .replace(/\p{Cc}/gu, ' ')
    .split(/\s+/)
    .map((term) => term.replace(/["*^():]/g, '').trim())
    .filter(Boolean);
  if (terms.length === 0) return null;
  return terms.map((term, i) => `"${term}"${prefixLast && i === terms.length - 1 ? '*' : ''}`).join(' ');
}
