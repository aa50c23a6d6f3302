/** What the instance records are made of: its figures, rules, contact, known peers and custom emojis. */
import type { Identity, InstanceIdentity } from './identity.js';
import type { EmojiRow, InstanceCounts, InstanceRepo, NodeInfoUsage } from './repo.js';

/** Bounds on the peer lists' answers (the whole list; a search's matches). */
const MAX_PEERS = 10_000;
const MAX_PEER_MATCHES = 10;

export interface InstanceOverview {
  stats: Awaited<ReturnType<InstanceRepo['stats']>>;
  rules: Array<{ id: number; text: string; hint: string }>;
  /** The contact account the owner chose, else the owner's; and the owner's email. */
  contact: { id: string; email: string } | undefined;
  identity: Identity;
}

export class InstanceService {
  constructor(
    private readonly repo: InstanceRepo,
    readonly identity: InstanceIdentity,
  ) {}

  async overview(): Promise<InstanceOverview> {
    const [stats, rules, owner, identity] = await Promise.all([
      this.repo.stats(),
      this.repo.rules(),
      this.repo.contactAccountId(),
      this.identity.get(),
    ]);
    const chosen = identity.contact_username ? await this.repo.localAccountId(identity.contact_username) : undefined;
    const contact = owner && chosen ? { id: chosen, email: owner.email } : owner;
    return { stats, rules, contact, identity };
  }

  rules(): Promise<Array<{ id: number; text: string; hint: string }>> {
    return this.repo.rules();
  }

  /** The figures the device state shows (accounts, statuses, the owner's pending requests and unread notifications). */
  counts(): Promise<InstanceCounts> {
    return this.repo.counts();
  }

  nodeInfoUsage(): Promise<NodeInfoUsage> {
    return this.repo.nodeInfoUsage();
  }

  /** Every known peer domain, lower case, in order. */
  async peers(): Promise<string[]> {
    return (await this.repo.peers('', MAX_PEERS)).map((row) => row.domain);
  }

  /** The first known peer domains starting with `query` (trimmed); none for a blank query. */
  async searchPeers(query: string): Promise<string[]> {
    const q = query.trim();
    return q ? (await this.repo.peers(q, MAX_PEER_MATCHES)).map((row) => row.domain) : [];
  }

  emojis(): Promise<EmojiRow[]> {
    return this.repo.emojis();
  }
}
