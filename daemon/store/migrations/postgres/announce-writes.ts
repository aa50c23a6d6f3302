/**
 * Every committed write announced on one LISTEN/NOTIFY channel, for the caches of every process on
 * the database (the response cache's data version, `store/server-watch.ts`). A statement trigger on
 * each table sends the notification inside the writing transaction, so it goes out when, and only
 * when, that transaction commits; PostgreSQL folds a transaction's identical notifications into one.
 * Installed after the migrations on every start, so a table a later migration adds is covered too.
 *
 * A session that counts its own commits (the daemon) turns its announcements off with
 * `ANNOUNCE_WRITES_SETTING`: PostgreSQL takes one cluster-wide lock from a notifying transaction's
 * pre-commit to the end of its commit, so every notifying commit waits for the one before it to
 * reach the disk.
 */

/** The channel a commit that wrote anything is announced on (no payload). */
export const DATA_VERSION_CHANNEL = 'nestbox_data_version';

const FUNCTION = 'nestbox_announce_write';
const TRIGGER = 'nestbox_announce_write';

/** The session setting that, `off`, keeps that session's writes unannounced. */
export const ANNOUNCE_WRITES_SETTING = 'nestbox.announce_writes';

const BODY = `
      BEGIN
        IF current_setting('${ANNOUNCE_WRITES_SETTING}', true) IS DISTINCT FROM 'off' THEN
          PERFORM pg_notify('${DATA_VERSION_CHANNEL}', '');
        END IF;
        RETURN NULL;
      END `;

/** Idempotent: makes the function (again, when its body differs) and the triggers that are missing, leaves the rest alone. */
export const ANNOUNCE_WRITES: readonly string[] = [
  `DO $announce$
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = '${FUNCTION}' AND pronamespace = current_schema()::regnamespace
        AND prosrc = $body$${BODY}$body$) THEN
      CREATE OR REPLACE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $f$${BODY}$f$;
    END IF;
  END $announce$`,
  `DO $announce$
  DECLARE
    missing regclass;
  BEGIN
    FOR missing IN
      SELECT c.oid::regclass FROM pg_class c
      WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
        AND c.relname NOT LIKE 'knex\\_migrations%'
        AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = '${TRIGGER}')
    LOOP
      EXECUTE format('CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s
        FOR EACH STATEMENT EXECUTE FUNCTION ${FUNCTION}()', missing);
    END LOOP;
  END $announce$`,
];
