/**
 * The instance actor (`/actor`, as Mastodon has): the key that signs our GET requests, since
 * servers in secure mode (and GoToSocial by default) answer only signed fetches. Its key pair is
 * made on first need and kept in the settings table.
 */
import type { Db } from '../../../store/db.js';
import { getOrCreateSetting, getSetting } from '../../../store/settings.js';
import { generateRsaKeys } from '../../accounts/service.js';
import type { SigningKey } from '../signatures/sign.js';
import { withContext } from '../objects/context.js';
import type { Json } from '../objects/ld.js';

const SETTING = 'federation.instance_actor_keys';

export class InstanceActor {
  private keys: Promise<{ publicKey: string; privateKey: string }> | null = null;

  constructor(
    private readonly db: Db,
    private readonly baseUrl: string,
    private readonly localDomain: string,
  ) {}

  get uri(): string {
    return `${this.baseUrl}/actor`;
  }

  private loadKeys(): Promise<{ publicKey: string; privateKey: string }> {
    this.keys ??= (async () => {
      const stored = await getSetting(this.db, SETTING);
      if (stored) return JSON.parse(stored) as { publicKey: string; privateKey: string };
      const made = JSON.stringify(await generateRsaKeys());
      // Another start may have stored its pair meanwhile: the first one stored is the key.
      return JSON.parse(await getOrCreateSetting(this.db, SETTING, () => made)) as {
        publicKey: string;
        privateKey: string;
      };
    })();
    this.keys.catch(() => {
      this.keys = null;
    });
    return this.keys;
  }

  async signingKey(): Promise<SigningKey> {
    return { keyId: `${this.uri}#main-key`, privateKeyPem: (await this.loadKeys()).privateKey };
  }

  async document(): Promise<Json> {
    const { publicKey } = await this.loadKeys();
    return withContext({
      id: this.uri,
      type: 'Application',
      // The host as Mastodon names its instance actor, without a port: a username has no colon,
      // and peers (this server too) refuse an actor whose name is not one.
      preferredUsername: this.localDomain.replace(/:\d+$/, ''),
      inbox: `${this.uri}/inbox`,
      outbox: `${this.uri}/outbox`,
      url: `${this.baseUrl}/about`,
      manuallyApprovesFollowers: true,
      publicKey: { id: `${this.uri}#main-key`, owner: this.uri, publicKeyPem: publicKey },
      endpoints: { sharedInbox: `${this.baseUrl}/inbox` },
    });
  }
}
