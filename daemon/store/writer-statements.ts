/**
 * Names for the writer's statements on PostgreSQL (knex's queries through node-postgres): a named
 * statement is parsed once per connection and its plan cached there, where knex's unnamed ones are
 * parsed and planned on every call (a delivery's INSERT … SELECT took longer to plan than to run).
 * Only what is safe to keep prepared is named:
 * - one statement with parameters (already sent with the extended protocol; a text without them
 *   may hold several statements, as the migrations' do);
 * - a query or a data change, not DDL or transaction control;
 * - no `*` column list: a table altered later (a migration on the same connection) would change
 *   its result's shape, which a prepared statement refuses.
 */

const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** A `*` that is not `count(*)`. */
const STAR_COLUMNS = /(?<!\()\*(?!\))/;
/** Longer texts are bulk statements (a move's batches): rare, and each plan held would be large. */
const MAX_NAMED_TEXT = 4000;
/**
 * Texts built from varying row counts stay few; still, never grow without bound. Past the bound new
 * texts go unnamed: a connection keeps every statement it prepared, so names dropped and made
 * again for the same texts would pile up on the server.
 */
const MAX_NAMES = 500;

export class WriterStatements {
  private readonly names = new Map<string, string>();
  private made = 0;

  constructor(private readonly maxNames = MAX_NAMES) {}

  /** The name `text` is prepared under, or undefined to send it unnamed. */
  nameOf(text: string, values: readonly unknown[] | undefined): string | undefined {
    if (!values?.length || text.length > MAX_NAMED_TEXT) return undefined;
    let name = this.names.get(text);
    if (name !== undefined) return name;
    if (!NAMEABLE.test(text) || STAR_COLUMNS.test(text) || this.names.size >= this.maxNames) return undefined;
    name = `nestbox_w${++this.made}`;
    this.names.set(text, name);
    return name;
  }
}
