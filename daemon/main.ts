/**
 * The daemon (started through entry.cjs, which sizes the thread pool first): parse arguments, load the config (exit 2 on a bad value), run the app,
 * and map SIGTERM/SIGINT to a clean stop within 10 s.
 */
import { parseArgs } from 'node:util';
import { App } from './app.js';
import { ConfigError, describeConfig, loadConfig, type Config } from './config.js';
import { Logger } from './log/logger.js';
import { installCrashHandlers } from './lifecycle/crash.js';
import { restoreRunningFlags } from './lifecycle/v8-flags.js';
import { VERSION } from './version.js';

const USAGE = `Usage: nestbox [--config FILE]

Runs the Nestbox daemon. Settings come from embedded defaults, then the JSON file
(--config FILE or NESTBOX_CONFIG), then NESTBOX_* environment variables.

Options:
  --config FILE   JSON settings file
  --version       print the version and exit
  --help          print this help and exit`;

const STOP_DEADLINE_MS = 10_000;

async function main(argv: string[]): Promise<void> {
  let args: { config?: string; help?: boolean; version?: boolean };
  try {
    args = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, help: { type: 'boolean' }, version: { type: 'boolean' } },
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (args.version) {
    process.stdout.write(VERSION + '\n');
    return;
  }

  let config: Config;
  try {
    config = loadConfig({ env: process.env, file: args.config ?? null });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(error.message + '\n');
      process.exit(2);
    }
    throw error;
  }

  const log = new Logger(config.logLevel, { service: 'nestbox' });
  installCrashHandlers(log);
  log.info('starting', { version: VERSION, pid: process.pid, config: describeConfig(config) });

  // The reachability switch moves the base URL without a restart: the app rebuilds its social side.
  const app = new App({ config, log, env: process.env });
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) {
      log.warn('second signal; exiting now', { signal });
      process.exit(1);
    }
    signalled = true;
    log.info('stopping', { signal });
    setTimeout(() => {
      log.error('stop took too long; exiting');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    app.stop(`stopping (${signal})`).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error) => {
        log.error('stop failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  try {
    await app.start();
  } catch (error) {
    if (error instanceof ConfigError) {
      // A base URL other than the stored one: the same one line and exit code as a bad setting.
      await app.stop('start-up refused').catch(() => undefined);
      log.error('start-up refused', { error: error.message });
      process.stderr.write(error.message + '\n');
      process.exit(2);
    }
    log.error('start-up failed', { error });
    await app.stop('start-up failed').catch(() => undefined);
    process.exit(1);
  }
  // Held back by entry.cjs while the start loaded Node's built-in modules (lifecycle/v8-flags.ts).
  restoreRunningFlags();
}

await main(process.argv.slice(2));
