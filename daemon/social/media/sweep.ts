/**
 * The periodic media sweep: what a crash, a power cut or a bug can leave behind is removed —
 * upload temp files nobody is writing any more, attachment folders without a row, rows stuck in
 * "processing" that no queue of this process will ever finish (marked failed, files removed), and
 * profile images (avatars, headers, local or peers' copies) no account points at.
 * Everything younger than the grace period is left alone: an upload may be between its file and
 * its row, or still arriving.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SocialContext } from '../context.js';
import { AccountsRepo } from '../accounts/repo.js';
import { nowIso } from '../time.js';
import type { MediaService } from './service.js';

export const SWEEP_GRACE_MS = 3600_000;

export interface SweepResult {
  tempFiles: number;
  orphanFolders: number;
  stuckRows: number;
  profileImages: number;
}

export class MediaSweep {
  private readonly accounts: AccountsRepo;

  constructor(
    private readonly ctx: SocialContext,
    private readonly media: MediaService,
    private readonly graceMs = SWEEP_GRACE_MS,
  ) {
    this.accounts = new AccountsRepo(ctx);
  }

  async run(): Promise<SweepResult> {
    const now = this.ctx.now();
    const tempFiles = await this.media.storage.sweepIncoming(this.graceMs, now);
    const stuckRows = await this.failStuck(now);
    const orphanFolders = await this.removeOrphans(now);
    const profileImages = await this.removeUnusedProfileImages(now);
    if (tempFiles + stuckRows + orphanFolders + profileImages > 0)
      this.ctx.log.info('media sweep', { tempFiles, orphanFolders, stuckRows, profileImages });
    return { tempFiles, orphanFolders, stuckRows, profileImages };
  }

  private async failStuck(now: number): Promise<number> {
    const stuck = await this.media.repo.stuckProcessing(nowIso(now - this.graceMs));
    const dropped = stuck.filter(({ id }) => !this.media.queued(id));
    for (const { id } of dropped) await this.media.fail(id);
    return dropped.length;
  }

  /** Attachment folders are named by their id; one whose id has no row is an orphan. */
  private async removeOrphans(now: number): Promise<number> {
    const names = (await readdir(this.media.storage.root).catch(() => [] as string[])).filter((name) =>
      /^\d{1,19}$/.test(name),
    );
    if (names.length === 0) return 0;
    const known = await this.media.repo.existing(names);
    let removed = 0;
    for (const name of names) {
      if (known.has(name)) continue;
      const info = await stat(this.media.storage.dir(name)).catch(() => null);
      if (!info || now - info.mtimeMs < this.graceMs) continue;
      await this.media.storage.remove(name);
      removed++;
    }
    return removed;
  }

  /** Files under accounts/<avatars|headers>/<account>/<original|static>/ that the account's row does not name. */
  private async removeUnusedProfileImages(now: number): Promise<number> {
    let removed = 0;
    for (const kind of ['avatars', 'headers']) {
      const kindDir = join(this.ctx.mediaDir, 'accounts', kind);
      for (const accountId of await readdir(kindDir).catch(() => [] as string[])) {
        if (!/^\d{1,19}$/.test(accountId)) continue;
        const named = await this.accounts.profileImagePaths(accountId);
        for (const variant of ['original', 'static']) {
          const dir = join(kindDir, accountId, variant);
          for (const file of await readdir(dir).catch(() => [] as string[])) {
            if (named.has(`/system/accounts/${kind}/${accountId}/${variant}/${file}`)) continue;
            const info = await stat(join(dir, file)).catch(() => null);
            if (!info || now - info.mtimeMs < this.graceMs) continue;
            await rm(join(dir, file), { force: true });
            removed++;
          }
        }
      }
    }
    return removed;
  }
}
