import type { Migration } from './index.js';

/**
 * Where a peer's account's avatar and header come from. The account row may point at a local
 * copy instead; the source tells a copy still current from one a new picture replaced.
 */
export const m20261122_63_social_remote_image_sources: Migration = {
  name: '20261122_63_social_remote_image_sources',
  async up(db) {
    await db.raw(`ALTER TABLE federation_actors ADD COLUMN avatar_source TEXT`);
    await db.raw(`ALTER TABLE federation_actors ADD COLUMN header_source TEXT`);
  },
};
