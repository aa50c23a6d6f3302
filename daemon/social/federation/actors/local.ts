/** Local accounts as actors: their documents and their signing keys (made on first need, cached). */
import type { AccountRow } from '../../accounts/repo.js';
import type { FederationContext } from '../context.js';
import type { SigningKey } from '../signatures/sign.js';
import type { Json } from '../objects/ld.js';
import { keyIdOf, renderActor } from './render.js';

export class LocalActors {
  private readonly keys = new Map<string, Promise<SigningKey>>();

  constructor(private readonly fed: FederationContext) {}

  /** A local, not suspended account by username; undefined otherwise. */
  async byUsername(username: string): Promise<AccountRow | undefined> {
    const row = await this.fed.services.accounts.byUsername(username, null);
    return row && !row.suspended_at ? row : undefined;
  }

  async document(account: AccountRow): Promise<Json> {
    const { publicKey } = await this.fed.services.accounts.ensureKeys(account.id);
    const moved = await this.fed.social.reader.get<{ target_uri: string }>(
      'SELECT target_uri FROM federation_local_moves WHERE account_id = ?',
      [account.id],
    );
    const aliases = await this.fed.social.reader.all<{ uri: string }>(
      'SELECT uri FROM federation_local_aliases WHERE account_id = ? ORDER BY uri',
      [account.id],
    );
    return renderActor(account, this.fed.baseUrl, {
      publicKeyPem: publicKey,
      movedTo: moved?.target_uri ?? null,
      alsoKnownAs: aliases.map((a) => a.uri),
    });
  }

  signingKey(accountId: string): Promise<SigningKey> {
    let key = this.keys.get(accountId);
    if (!key) {
      key = (async () => {
        const account = await this.fed.services.accounts.get(accountId);
        const { privateKey } = await this.fed.services.accounts.ensureKeys(accountId);
        return { keyId: keyIdOf(account.uri), privateKeyPem: privateKey };
      })();
      key.catch(() => this.keys.delete(accountId));
      this.keys.set(accountId, key);
    }
    return key;
  }
}
