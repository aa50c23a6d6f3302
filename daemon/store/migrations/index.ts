/**
 * Every migration of the daemon, in name order. Names start with a date and a sequence so that
 * subsystems can add theirs without reordering anyone else's: YYYYMMDD_NN_subsystem_what.
 * A migration's code is imported only when it has to run: a start on a migrated database reads
 * none of them.
 */
import type { Knex } from 'knex';
import type { Engine } from '../dialect.js';

export interface Migration {
  name: string;
  up: (db: Knex) => Promise<void>;
  down?: (db: Knex) => Promise<void>;
}

/** The migration `name`, its module loaded by `load` the first time it runs. */
function onDemand(name: string, load: () => Promise<Migration>): Migration {
  const loaded = async () => {
    const migration = await load();
    if (migration.name !== name) throw new Error(`migration ${name} is listed under the name of ${migration.name}`);
    return migration;
  };
  return {
    name,
    up: async (db) => (await loaded()).up(db),
    down: async (db) => {
      const { down } = await loaded();
      if (!down) throw new Error(`${name} cannot be undone`);
      await down(db);
    },
  };
}

/** SQLite's migrations up to the PostgreSQL baseline, each written for SQLite alone. */
const SQLITE_HISTORY: readonly Migration[] = [
  onDemand(
    '20261121_01_core_settings',
    async () => (await import('./20261121_01_core_settings.js')).m20261121_01_core_settings,
  ),
  onDemand(
    '20261122_11_social_accounts',
    async () => (await import('./20261122_11_social_accounts.js')).m20261122_11_social_accounts,
  ),
  onDemand(
    '20261122_12_social_statuses',
    async () => (await import('./20261122_12_social_statuses.js')).m20261122_12_social_statuses,
  ),
  onDemand(
    '20261122_13_social_relationships',
    async () => (await import('./20261122_13_social_relationships.js')).m20261122_13_social_relationships,
  ),
  onDemand(
    '20261122_14_social_notifications',
    async () => (await import('./20261122_14_social_notifications.js')).m20261122_14_social_notifications,
  ),
  onDemand(
    '20261122_16_social_reblog_once',
    async () => (await import('./20261122_16_social_reblog_once.js')).m20261122_16_social_reblog_once,
  ),
  onDemand(
    '20261122_21_connectivity_networks',
    async () => (await import('./20261122_21_connectivity_networks.js')).m20261122_21_connectivity_networks,
  ),
  onDemand(
    '20261122_31_social_media',
    async () => (await import('./20261122_31_social_media.js')).m20261122_31_social_media,
  ),
  onDemand(
    '20261122_32_social_tags_search',
    async () => (await import('./20261122_32_social_tags_search.js')).m20261122_32_social_tags_search,
  ),
  onDemand(
    '20261122_33_social_breadth',
    async () => (await import('./20261122_33_social_breadth.js')).m20261122_33_social_breadth,
  ),
  onDemand(
    '20261122_34_social_home_feed',
    async () => (await import('./20261122_34_social_home_feed.js')).m20261122_34_social_home_feed,
  ),
  onDemand(
    '20261122_41_social_federation_queue',
    async () => (await import('./20261122_41_social_federation_queue.js')).m20261122_41_social_federation_queue,
  ),
  onDemand(
    '20261122_51_social_render_versions',
    async () => (await import('./20261122_51_social_render_versions.js')).m20261122_51_social_render_versions,
  ),
  onDemand(
    '20261122_52_social_status_edits',
    async () => (await import('./20261122_52_social_status_edits.js')).m20261122_52_social_status_edits,
  ),
  onDemand(
    '20261122_53_social_lists',
    async () => (await import('./20261122_53_social_lists.js')).m20261122_53_social_lists,
  ),
  onDemand(
    '20261122_54_social_scheduled_statuses',
    async () => (await import('./20261122_54_social_scheduled_statuses.js')).m20261122_54_social_scheduled_statuses,
  ),
  onDemand(
    '20261122_55_social_tag_follows',
    async () => (await import('./20261122_55_social_tag_follows.js')).m20261122_55_social_tag_follows,
  ),
  onDemand(
    '20261122_56_social_emojis_in_use',
    async () => (await import('./20261122_56_social_emojis_in_use.js')).m20261122_56_social_emojis_in_use,
  ),
  onDemand(
    '20261122_57_social_conversations',
    async () => (await import('./20261122_57_social_conversations.js')).m20261122_57_social_conversations,
  ),
  onDemand(
    '20261122_58_social_polls',
    async () => (await import('./20261122_58_social_polls.js')).m20261122_58_social_polls,
  ),
  onDemand(
    '20261122_59_social_notification_policy',
    async () => (await import('./20261122_59_social_notification_policy.js')).m20261122_59_social_notification_policy,
  ),
  onDemand(
    '20261122_60_social_suggestion_dismissals',
    async () =>
      (await import('./20261122_60_social_suggestion_dismissals.js')).m20261122_60_social_suggestion_dismissals,
  ),
  onDemand(
    '20261122_61_social_featured',
    async () => (await import('./20261122_61_social_featured.js')).m20261122_61_social_featured,
  ),
  onDemand(
    '20261122_62_social_status_edits_polls',
    async () => (await import('./20261122_62_social_status_edits_polls.js')).m20261122_62_social_status_edits_polls,
  ),
  onDemand(
    '20261122_63_social_remote_image_sources',
    async () => (await import('./20261122_63_social_remote_image_sources.js')).m20261122_63_social_remote_image_sources,
  ),
  onDemand(
    '20261122_64_social_follow_endings_in_service',
    async () =>
      (await import('./20261122_64_social_follow_endings_in_service.js')).m20261122_64_social_follow_endings_in_service,
  ),
  onDemand(
    '20261126_65_social_instance_actor_deliveries',
    async () =>
      (await import('./20261126_65_social_instance_actor_deliveries.js')).m20261126_65_social_instance_actor_deliveries,
  ),
  onDemand(
    '20261205_66_social_conversations_in_service',
    async () =>
      (await import('./20261205_66_social_conversations_in_service.js')).m20261205_66_social_conversations_in_service,
  ),
];

/**
 * Migrations after the PostgreSQL baseline, written once for both engines: what differs between
 * them comes from `dialectOf(db)` (../dialect.ts). Name them after the baseline's name.
 */
const BOTH_ENGINES: readonly Migration[] = [
  onDemand(
    '20261206_10_social_search_folded',
    async () => (await import('./20261206_10_social_search_folded.js')).m20261206_10_social_search_folded,
  ),
  onDemand(
    '20261207_20_social_search_vectors',
    async () => (await import('./20261207_20_social_search_vectors.js')).m20261207_20_social_search_vectors,
  ),
  onDemand(
    '20261208_10_social_accounts_suspended',
    async () => (await import('./20261208_10_social_accounts_suspended.js')).m20261208_10_social_accounts_suspended,
  ),
  onDemand(
    '20261209_30_social_render_version_once',
    async () => (await import('./20261209_30_social_render_version_once.js')).m20261209_30_social_render_version_once,
  ),
];

/** SQLite's migrations, in name order. */
export const MIGRATIONS: readonly Migration[] = [...SQLITE_HISTORY, ...BOTH_ENGINES];

/** PostgreSQL's: the baseline (SQLite's schema after its history, in one step), then the same as SQLite's. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  onDemand('20261205_99_postgres_baseline', async () => (await import('./postgres/baseline.js')).postgresBaseline),
  ...BOTH_ENGINES,
];

export function migrationsFor(engine: Engine): readonly Migration[] {
  return engine === 'postgres' ? POSTGRES_MIGRATIONS : MIGRATIONS;
}
