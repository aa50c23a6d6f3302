/** The box's owner account on a daemon's database, made as `npm run admin` makes it, and a token for it. */
import { loadConfig } from '../../daemon/config.js';
import { loadAdminTool, openAdminTool } from './admin-tool.js';

const OWNER_PASSWORD = 'owner-password-1';

export async function createOwnerToken(dataDir: string, scopes: string): Promise<string> {
  const admin = await openAdminTool(loadAdminTool(), loadConfig({ env: { NESTBOX_DATA_DIR: dataDir } }));
  try {
    await admin.createAccount({
      username: 'owner',
      email: 'owner@example.test',
      password: OWNER_PASSWORD,
      owner: true,
    });
    return (await admin.token({ username: 'owner', scopes })).accessToken;
  } finally {
    await admin.close();
  }
}
