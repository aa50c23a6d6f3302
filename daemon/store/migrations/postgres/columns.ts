/**
 * Column types the PostgreSQL baseline shares. Text orders and compares as SQLite's does (bytes:
 * the C collation, whatever the database's own default), so pages, prefix ranges and lower()
 * (ASCII only, as SQLite's) agree between the engines. Times stay ISO 8601 text in both, as the
 * repositories write and compare them.
 */
export const TEXT = 'text COLLATE "C"';
/** The ISO 8601 text of now, for the defaults SQLite fills with CURRENT_TIMESTAMP. */
export const NOW = `(to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
