/**
 * Every migration of the daemon, in name order. Names start with a date and a sequence so that
 * subsystems can add theirs without reordering anyone else's: YYYYMMDD_NN_subsystem_what.
 */
import type { Knex } from 'knex';
import { m20261121_01_core_settings } from './20261121_01_core_settings.js';
import { m20261122_11_social_accounts } from './20261122_11_social_accounts.js';
import { m20261122_12_social_statuses } from './20261122_12_social_statuses.js';
import { m20261122_13_social_relationships } from './20261122_13_social_relationships.js';
import { m20261122_14_social_notifications } from './20261122_14_social_notifications.js';
import { m20261122_16_social_reblog_once } from './20261122_16_social_reblog_once.js';
import { m20261122_21_connectivity_networks } from './20261122_21_connectivity_networks.js';
import { m20261122_31_social_media } from './20261122_31_social_media.js';
import { m20261122_32_social_tags_search } from './20261122_32_social_tags_search.js';
import { m20261122_33_social_breadth } from './20261122_33_social_breadth.js';
import { m20261122_34_social_home_feed } from './20261122_34_social_home_feed.js';
import { m20261122_41_social_federation_queue } from './20261122_41_social_federation_queue.js';
import { m20261122_51_social_render_versions } from './20261122_51_social_render_versions.js';
import { m20261122_52_social_status_edits } from './20261122_52_social_status_edits.js';
import { m20261122_53_social_lists } from './20261122_53_social_lists.js';
import { m20261122_54_social_scheduled_statuses } from './20261122_54_social_scheduled_statuses.js';
import { m20261122_55_social_tag_follows } from './20261122_55_social_tag_follows.js';
import { m20261122_56_social_emojis_in_use } from './20261122_56_social_emojis_in_use.js';
import { m20261122_57_social_conversations } from './20261122_57_social_conversations.js';
import { m20261122_58_social_polls } from './20261122_58_social_polls.js';
import { m20261122_59_social_notification_policy } from './20261122_59_social_notification_policy.js';
import { m20261122_60_social_suggestion_dismissals } from './20261122_60_social_suggestion_dismissals.js';
import { m20261122_61_social_featured } from './20261122_61_social_featured.js';
import { m20261122_62_social_status_edits_polls } from './20261122_62_social_status_edits_polls.js';
import { m20261122_63_social_remote_image_sources } from './20261122_63_social_remote_image_sources.js';
import { m20261122_64_social_follow_endings_in_service } from './20261122_64_social_follow_endings_in_service.js';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  m20261121_01_core_settings,
  m20261122_11_social_accounts,
  m20261122_12_social_statuses,
  m20261122_13_social_relationships,
  m20261122_14_social_notifications,
  m20261122_16_social_reblog_once,
  m20261122_21_connectivity_networks,
  m20261122_31_social_media,
  m20261122_32_social_tags_search,
  m20261122_33_social_breadth,
  m20261122_34_social_home_feed,
  m20261122_41_social_federation_queue,
  m20261122_51_social_render_versions,
  m20261122_52_social_status_edits,
  m20261122_53_social_lists,
  m20261122_54_social_scheduled_statuses,
  m20261122_55_social_tag_follows,
  m20261122_56_social_emojis_in_use,
  m20261122_57_social_conversations,
  m20261122_58_social_polls,
  m20261122_59_social_notification_policy,
  m20261122_60_social_suggestion_dismissals,
  m20261122_61_social_featured,
  m20261122_62_social_status_edits_polls,
  m20261122_63_social_remote_image_sources,
  m20261122_64_social_follow_endings_in_service,
];
