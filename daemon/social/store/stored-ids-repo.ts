/** The highest snowflake id stored in each table that takes them (accounts, statuses, media). */
import type { Reader } from './reader.js';

const SNOWFLAKE_TABLES = ['accounts', 'statuses', 'media_attachments'] as const;

export class StoredIdsRepo {
  constructor(private readonly reader: Reader) {}

  /** Each table's highest id, as decimal text; empty tables are left out. */
  async highestIds(): Promise<string[]> {
    const ids: string[] = [];
    for (const table of SNOWFLAKE_TABLES) {
      const row = await this.reader.get<{ id: string | null }>(`SELECT CAST(max(id) AS TEXT) AS id FROM ${table}`);
      if (row?.id) ids.push(row.id);
    }
    return ids;
  }
}
