/**
 * On PostgreSQL a change to what a status is rendered from (its mentions, tags, media, poll) moves
 * the status's render version once per transaction: not when the status row was already written
 * in the same transaction (its `xmin` is the transaction's own id), because that write moved the
 * version itself (BEFORE UPDATE) or made the row, which nobody has rendered yet. A post with
 * mentions and a hashtag then writes its status row once instead of once per mention and tag.
 * Only the cache key's moving matters, not by how much: the committed version still differs from
 * every version rendered before. (A savepoint's rows carry a subtransaction's id: those still move.)
 */

const TABLES = ['mentions', 'status_tags', 'media_attachments', 'polls'] as const;

const BUMP = (row: 'NEW' | 'OLD') =>
  `UPDATE statuses SET version = version + 1 WHERE id = ${row}.status_id AND xmin <> CAST(pg_current_xact_id() AS xid);`;

/** The functions of the `<table>_render_status` triggers made again with the rule above. */
export const RENDER_VERSION_ONCE_PER_TRANSACTION: readonly string[] = TABLES.map(
  (table) => `CREATE OR REPLACE FUNCTION ${table}_render_status() RETURNS trigger LANGUAGE plpgsql AS $rule$
  BEGIN
    IF TG_OP <> 'DELETE' THEN ${BUMP('NEW')} END IF;
    IF TG_OP <> 'INSERT' THEN ${BUMP('OLD')} END IF;
    RETURN NULL;
  END $rule$`,
);
