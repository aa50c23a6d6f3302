/**
 * Search queries: the `from:` operator split off, and the rest split into terms that the store
 * quotes as phrases (store/dialect.ts `textQuery`, the last one a prefix): no character that could
 * end a quoted string or be query syntax on either engine is left in a term.
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

/**
 * The terms of search text. Control characters (NUL ends an FTS5 string, and PostgreSQL takes no
 * NUL) separate terms like spaces; quotes and backslashes split a term where the tokenizers split
 * it anyway, and the operators of either engine's query syntax are dropped.
 */
export function searchTerms(text: string): string[] {
  return text
    .replace(/\p{Cc}/gu, ' ')
    .split(/\s+/)
    .map((term) =>
      term
        .replace(/["*^():]/g, '')
        .replace(/['\\]/g, ' ')
        .trim(),
    )
    .filter(Boolean);
}
