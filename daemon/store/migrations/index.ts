/**
 * Every migration of the daemon, in name order. Names start with a date and a sequence so that
 * subsystems can add theirs without reordering anyone else's: YYYYMMDD_NN_subsystem_what.
 */
import type { Knex } from 'knex';
import { m20261121_01_core_settings } from './20261121_01_core_settings.js';
import { m20261122_21_connectivity_networks } from './20261122_21_connectivity_networks.js';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  m20261121_01_core_settings,
  m20261122_21_connectivity_networks,
];
