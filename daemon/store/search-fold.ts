/**
 * PostgreSQL's side of full-text search, made to split and compare words as SQLite's FTS5
 * tokenizer (`unicode61 remove_diacritics 2`) does: the `simple` configuration on text folded by
 * `search_fold`, which lowers, strips diacritics from Latin, Greek and Cyrillic letters and turns
 * punctuation into spaces (so `foo-bar`, `bob_cat`, `box.example` are words apart, not the
 * parser's hyphenated words, hosts or e-mail addresses). The database's ctype may be `C`, under
 * which `to_tsvector` lowers only ASCII: the fold is a fixed `translate` table, immutable and the
 * same on every server, no extension needed. Search terms are folded by the same table here.
 */

/** Blocks whose letters are folded: Latin-1, Latin Extended-A/B, Greek, Cyrillic, Latin Extended Additional. */
const LETTER_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00c0, 0x024f],
  [0x0370, 0x04ff],
  [0x1e00, 0x1eff],
];
/** Blocks whose punctuation and symbols separate words: ASCII, Latin-1's, General Punctuation. */
const SEPARATOR_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0021, 0x007e],
  [0x00a0, 0x00bf],
  [0x2000, 0x206f],
];

function foldTable(): Map<string, string> {
  const table = new Map<string, string>();
  for (const [first, last] of SEPARATOR_RANGES)
    for (let code = first; code <= last; code++) {
      const character = String.fromCodePoint(code);
      if (!/[\p{L}\p{N}]/u.test(character)) table.set(character, ' ');
    }
  for (const [first, last] of LETTER_RANGES)
    for (let code = first; code <= last; code++) {
      const letter = String.fromCodePoint(code);
      const folded = letter.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
      if (/\p{L}/u.test(letter) && folded.length === 1 && folded !== letter) table.set(letter, folded);
    }
  return table;
}

const FOLD = foldTable();

/**
 * A string constant of escapes only (`U&'\+000021…'`): plain ASCII in the DDL, and no `?` that
 * knex would take for a binding.
 */
const literal = (text: string) =>
  `U&'${[...text].map((character) => `\\+${character.codePointAt(0)!.toString(16).padStart(6, '0')}`).join('')}'`;

const column = (alias: string, name: string) => (alias ? `${alias}.${name}` : name);

/** The search vector of a statuses row (`alias`; none in the index): the expression the GIN index holds. */
export const statusVector = (alias: string) =>
  `to_tsvector('simple', search_fold(${column(alias, 'text')} || ' ' || ${column(alias, 'spoiler_text')}))`;

/** The search vector of an accounts row (`alias`; none in the index): the expression the GIN index holds. */
export const accountVector = (alias: string) =>
  `to_tsvector('simple', search_fold(${column(alias, 'username')} || ' ' || ${column(alias, 'display_name')}
    || ' ' || coalesce(${column(alias, 'domain')}, '')))`;

/** The statements that make the fold and index both vectors, in place of the baseline's unfolded indexes. */
export function postgresSearchSchema(): string[] {
  const from = [...FOLD.keys()].join('');
  const to = [...FOLD.values()].join('');
  return [
    `CREATE FUNCTION search_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN translate(lower(value), ${literal(from)}, ${literal(to)})`,
    'DROP INDEX statuses_search',
    'DROP INDEX accounts_search',
    `CREATE INDEX statuses_search ON statuses USING gin (${statusVector('')}) WHERE reblog_of_id IS NULL`,
    `CREATE INDEX accounts_search ON accounts USING gin (${accountVector('')})`,
  ];
}

/** A term folded as `search_fold` folds the text it is looked for in (ASCII lowered by to_tsquery). */
function foldTerm(term: string): string {
  return [...term]
    .map((character) => FOLD.get(character) ?? character)
    .join('')
    .trim();
}

/**
 * The tsquery text for search terms: each a quoted phrase of its folded words (no quote or
 * backslash left in it, so nothing in a term is query syntax), the last a prefix.
 */
export function tsqueryText(terms: readonly string[]): string {
  const phrases = terms.map(foldTerm).filter(Boolean);
  return phrases.map((phrase, i) => `'${phrase}'${i === phrases.length - 1 ? ':*' : ''}`).join(' & ');
}
