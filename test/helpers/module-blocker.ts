/**
 * Preloaded into a daemon (`NODE_OPTIONS=--import=<this file>`): the packages named in
 * MODULE_BLOCKER_DENY (comma-separated) cannot be imported, as if they were missing, so a test can
 * see what the daemon does when a part loaded on first use fails to load.
 */
import { register } from 'node:module';

const deny = (process.env.MODULE_BLOCKER_DENY ?? '').split(',').filter(Boolean);
register(new URL('./module-blocker-hooks.js', import.meta.url), { data: { deny } });
