/**
 * The daemon's configuration for the commands: the same table, the same sources (--config FILE or
 * NESTBOX_CONFIG, then NESTBOX_* variables) and the same answer to a bad value (one line, exit 2).
 */
import { ConfigError, loadConfig, type Config } from '../../daemon/config.js';
import { fail } from './args.js';

export function loadCommandConfig(file: string | undefined): Config {
  try {
    return loadConfig({ env: process.env, file: file ?? null });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2);
    throw error;
  }
}
