/**
 * npm run admin -- <command> [options]: the owner's command-line tools (see --help).
 * Reads the daemon's configuration (--config FILE or NESTBOX_CONFIG, NESTBOX_* variables) and works
 * on its database, also while the daemon runs; refuses a base URL other than the instance's.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, type Config } from '../daemon/config.js';
import { replaceSetupPassphrase } from '../daemon/connectivity/setup-identity.js';
import { LabelUnavailable, loadSetupLabel, writeSetupLabel } from '../daemon/connectivity/setup-label.js';
import { openStore } from '../daemon/store/open.js';
import { migrate } from '../daemon/store/migrate.js';
import { AdminTool, describeAdminError } from '../daemon/social/admin.js';
import { moveCommand } from './lib/move-to-postgres.js';
import { loadCommandConfig } from './lib/config.js';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-account --username U --email E --password P [--owner] [--locked]
      Creates a local account; --owner makes it the box owner (the role that may hold admin scopes).
  token --username U --scopes "read write" [--app NAME]
      Issues an access token for the account; prints it as the last line.
  reset-password --username U [--password P]
      Sets a new password (generated and printed when not given) and revokes the account's tokens.
  create-announcement --text T [--starts-at ISO --ends-at ISO [--all-day]]
      Publishes an announcement to every user; --all-day only with a time range. Prints its id.
  label [--out DIR] [--new-key]
      Writes the box's label (nestbox-label.png and .svg, default DIR: <data dir>/label): the setup
      network's name, its key, a QR code phones join with, the dashboard address. --new-key first
      replaces the setup key (the daemon uses it after its next restart; reprint the label).
  set-base-url URL
      Moves the instance to another base URL (stored at its first start; ids and links are made
      from it): the links kept in the database move with it. Restart the daemon afterwards, with
      base_url / NESTBOX_BASE_URL set to URL or unset. Peers that follow an account keep its old id.
  move-to-postgres URL [--batch-rows N]
      With the daemon stopped, copies the whole SQLite database into the empty PostgreSQL database
      at URL (one transaction: stopped half way, the target stays empty) and prints the setting to
      add as its last line: NESTBOX_DATABASE_URL=URL. Media files and the settings file stay.

Options:
  --config FILE   JSON settings file (as for the daemon; else NESTBOX_CONFIG, then NESTBOX_* variables)
  --help          print this help`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        username: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        owner: { type: 'boolean' },
        locked: { type: 'boolean' },
        scopes: { type: 'string' },
        app: { type: 'string' },
        text: { type: 'string' },
        'starts-at': { type: 'string' },
        'ends-at': { type: 'string' },
        'all-day': { type: 'boolean' },
        out: { type: 'string' },
        'new-key': { type: 'boolean' },
        'batch-rows': { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help || !command) {
    (values.help ? process.stdout : process.stderr).write(USAGE + '\n');
    return values.help ? 0 : 2;
  }
  const need = (name: 'username' | 'email' | 'password' | 'scopes' | 'text'): string => {
    const value = values[name];
    if (!value) throw new UsageError(`--${name} is required for ${command}`);
    return value;
  };

  const config = loadCommandConfig(values.config);
  let tool: AdminTool | null = null;
  try {
    if (command === 'label') return await printLabel(config, values.out, values['new-key'] ?? false);
    if (command === 'set-base-url') {
      if (positionals.length !== 2) throw new UsageError('set-base-url takes one URL');
      const { previous, baseUrl } = await AdminTool.changeBaseUrl(config, positionals[1]);
      process.stdout.write(
        `base URL ${previous === baseUrl ? 'stays' : 'is now'} ${baseUrl}${previous && previous !== baseUrl ? ` (was ${previous})` : ''}; restart the daemon to use it\n`,
      );
      return 0;
    }
    if (command === 'move-to-postgres') {
      if (positionals.length !== 2) throw new UsageError('move-to-postgres takes one URL');
      const batch = Number(values['batch-rows'] ?? DEFAULT_BATCH_ROWS);
      if (!Number.isSafeInteger(batch) || batch < 1) throw new UsageError('--batch-rows takes a whole number of rows');
      return await moveCommand(config, positionals[1], batch);
    }
    tool = await AdminTool.open(config);
    switch (command) {
      case 'create-account': {
        const account = await tool.createAccount({
          username: need('username'),
          email: need('email'),
          password: need('password'),
          owner: values.owner,
          locked: values.locked,
        });
        process.stdout.write(
          `created account ${account.username} (id ${account.id})${values.owner ? ' as the owner' : ''}\n`,
        );
        return 0;
      }
      case 'token': {
        const token = await tool.token({ username: need('username'), scopes: need('scopes'), app: values.app });
        process.stdout.write(`scopes: ${token.scopes}\n${token.accessToken}\n`);
        return 0;
      }
      case 'reset-password': {
        const password = await tool.resetPassword(need('username'), values.password);
        process.stdout.write(
          values.password ? 'password changed; tokens revoked\n' : `new password (tokens revoked):\n${password}\n`,
        );
        return 0;
      }
      case 'create-announcement': {
        const id = await tool.createAnnouncement({
          text: need('text'),
          startsAt: values['starts-at'],
          endsAt: values['ends-at'],
          allDay: values['all-day'],
        });
        process.stdout.write(`published announcement ${id}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    process.stderr.write(`admin: ${describeAdminError(error)}\n`);
    return 1;
  } finally {
    await tool?.close();
  }
}

class UsageError extends Error {}

const DEFAULT_BATCH_ROWS = 5000;

/** The label needs only the box's settings, not the social instance. */
async function printLabel(config: Config, out: string | undefined, newKey: boolean): Promise<number> {
  const db = await openStore(config);
  try {
    await migrate(db);
    if (newKey && config.setupPassphrase) {
      process.stderr.write('admin: NESTBOX_SETUP_PASSPHRASE sets the key: change it there instead\n');
      return 1;
    }
    if (newKey) await replaceSetupPassphrase(db);
    const paths = await writeSetupLabel(out ?? join(config.dataDir, 'label'), await loadSetupLabel(db, config));
    process.stdout.write(
      `${newKey ? 'new setup key stored (restart the daemon to use it); ' : ''}label written:\n${paths.png}\n${paths.svg}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof LabelUnavailable)) throw error;
    process.stderr.write(`admin: ${error.message}\n`);
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main(process.argv.slice(2));
