/**
 * PostgreSQL's side of full-text search, made to split and compare words as SQLite's FTS5
 * tokenizer (`unicode61 remove_diacritics 2`) does: the `simple` configuration on text folded by
 * `search_fold`: decomposed (NFD), lowered by ICU (the database's ctype may be `C`, under which
 * `lower` and `to_tsvector` lower only ASCII), diacritics dropped, and punctuation turned into
 * spaces, so `foo-bar`, `bob_cat` and `box.example` are words apart (not the parser's hyphenated
 * words, hosts or e-mail addresses) and `Café` is `cafe`. Search terms are folded the same way here.
 */

type Ranges = ReadonlyArray<readonly [number, number]>;

/** Combining marks: what is left of a diacritic after decomposition. */
const MARKS: Ranges = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
];
/** Punctuation and symbols that separate words: ASCII's, Latin-1's, General Punctuation. */
const SEPARATORS: Ranges = [
  [0x0021, 0x002f],
  [0x003a, 0x0040],
  [0x005b, 0x0060],
  [0x007b, 0x007e],
  [0x00a0, 0x00bf],
  [0x2000, 0x206f],
];

const hex = (code: number) => code.toString(16).padStart(4, '0');
/** A bracket expression of `\uXXXX` escapes, read alike by PostgreSQL's regular expressions and JavaScript's. */
const bracket = (ranges: Ranges) => `[${ranges.map(([first, last]) => `\\u${hex(first)}-\\u${hex(last)}`).join('')}]`;

const MARK_PATTERN = new RegExp(bracket(MARKS), 'g');
const SEPARATOR_PATTERN = new RegExp(bracket(SEPARATORS), 'g');

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
  return [
    `CREATE FUNCTION search_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN regexp_replace(regexp_replace(lower(normalize(value, NFD) COLLATE "und-x-icu"),
        '${bracket(MARKS)}', '', 'g'), '${bracket(SEPARATORS)}', ' ', 'g')`,
    'DROP INDEX statuses_search',
    'DROP INDEX accounts_search',
    `CREATE INDEX statuses_search ON statuses USING gin (${statusVector('')}) WHERE reblog_of_id IS NULL`,
    `CREATE INDEX accounts_search ON accounts USING gin (${accountVector('')})`,
  ];
}

/** The stored, generated column holding a searched row's vector (statuses and accounts). */
export const SEARCH_VECTOR = 'search_vector';

/**
 * The statements that store both vectors as generated columns and index those in place of the
 * expression indexes: matching and ranking then read the stored vector.
 */
export function postgresSearchColumns(): string[] {
  const stored = (table: string, vector: string) =>
    `ALTER TABLE ${table} ADD COLUMN ${SEARCH_VECTOR} tsvector GENERATED ALWAYS AS (${vector}) STORED`;
  return [
    stored('statuses', statusVector('')),
    stored('accounts', accountVector('')),
    'DROP INDEX statuses_search',
    'DROP INDEX accounts_search',
    `CREATE INDEX statuses_search ON statuses USING gin (${SEARCH_VECTOR}) WHERE reblog_of_id IS NULL`,
    `CREATE INDEX accounts_search ON accounts USING gin (${SEARCH_VECTOR})`,
  ];
}

/** A term folded as `search_fold` folds the text it is looked for in. */
function foldTerm(term: string): string {
  return term.normalize('NFD').toLowerCase().replace(MARK_PATTERN, '').replace(SEPARATOR_PATTERN, ' ').trim();
}

/**
 * The tsquery text for search terms: each a quoted phrase of its folded words (quotes and
 * backslashes are separators, so nothing in a term is query syntax), the last a prefix.
 */
export function tsqueryText(terms: readonly string[]): string {
  const phrases = terms.map(foldTerm).filter(Boolean);
  return phrases.map((phrase, i) => `'${phrase}'${i === phrases.length - 1 ? ':*' : ''}`).join(' & ');
}
