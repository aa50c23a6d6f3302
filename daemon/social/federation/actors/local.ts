/** Local accounts as actors: their documents and their signing keys (made on first need, cached). */
import type { AccountRow } from '../../accounts/repo.js';
import type { FederationContext } from '../context.js';
import type { SigningKey } from '../signatures/sign.js';
import type { Json } from '../objects/ld.js';
import { keyIdOf, renderActor } from './render.js';
import { LocalMovesRepo } from './moves-repo.js';

export class LocalActors {
  private readonly keys = new Map<string, Promise<SigningKey>>();

  private readonly moves: LocalMovesRepo;

  constructor(private readonly fed: FederationContext) {
    this.moves = new LocalMovesRepo(fed.social);
  }

  /** A local, not suspended account by username; undefined otherwise. */
  async byUsername(username: string): Promise<AccountRow | undefined> {
    const row = await this.fed.services.accounts.byUsername(username, null);
    return row && !row.suspended_at ? row : undefined;
  }

  async document(account: AccountRow): Promise<Json> {
    const { publicKey } = await this.fed.services.accounts.ensureKeys(account.id);
    return renderActor(account, this.fed.baseUrl, {
      publicKeyPem: publicKey,
      movedTo: await this.moves.movedTo(account.id),
      alsoKnownAs: await this.moves.aliases(account.id),
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
