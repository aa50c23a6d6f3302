/**
 * Announcement rules: the owner publishes them (the admin tool; there is no API for it), with an
 * optional time range; all_day only with a range; users mark them read (twice is no error), and
 * react with a Unicode emoji or a local custom emoji.
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { textToHtml } from '../statuses/html.js';
import { AnnouncementsRepo, type AnnouncementRow } from './repo.js';

export interface NewAnnouncement {
  text: string;
  startsAt?: string;
  endsAt?: string;
  allDay?: boolean;
}

const EMOJI =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[\u{1F3FB}-\u{1F3FF}#*0-9]|\u200D|\uFE0F|\u20E3)+$/u;

export class AnnouncementsService {
  readonly repo: AnnouncementsRepo;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new AnnouncementsRepo(ctx);
  }

  // The reads routes answer with, as the repo makes them.
  customEmoji(...args: Parameters<AnnouncementsRepo['customEmoji']>): ReturnType<AnnouncementsRepo['customEmoji']> {
    return this.repo.customEmoji(...args);
  }
  reactions(...args: Parameters<AnnouncementsRepo['reactions']>): ReturnType<AnnouncementsRepo['reactions']> {
    return this.repo.reactions(...args);
  }

  async create(input: NewAnnouncement): Promise<string> {
    const text = input.text.trim();
    if (!text) throw unprocessable("Validation failed: Text can't be blank");
    const startsAt = parseTime(input.startsAt, 'Starts at');
    const endsAt = parseTime(input.endsAt, 'Ends at');
    if ((startsAt === null) !== (endsAt === null))
      throw unprocessable('Validation failed: A time range needs both a start and an end');
    if (startsAt && endsAt && endsAt <= startsAt)
      throw unprocessable('Validation failed: Ends at must be after starts at');
    if (input.allDay && !startsAt) throw unprocessable('Validation failed: All day can only be set with a time range');
    const now = nowIso(this.ctx.now());
    return this.repo.insert({
      text,
      content: textToHtml(text),
      starts_at: startsAt,
      ends_at: endsAt,
      all_day: input.allDay ? 1 : 0,
      published_at: now,
      updated_at: now,
    });
  }

  list(accountId: string, withDismissed: boolean) {
    return this.repo.list(accountId, nowIso(this.ctx.now()), withDismissed);
  }

  private async existing(id: string): Promise<AnnouncementRow> {
    const row = await this.repo.one(id);
    if (!row) throw notFound();
    return row;
  }

  async dismiss(accountId: string, id: string): Promise<void> {
    await this.existing(id);
    await this.repo.dismiss(id, accountId);
  }

  async react(accountId: string, id: string, name: string): Promise<void> {
    await this.existing(id);
    if (!EMOJI.test(name) && !(await this.repo.customEmoji(name)))
      throw unprocessable('Validation failed: Name is not a recognized emoji');
    await this.repo.react(id, accountId, name, nowIso(this.ctx.now()));
    await this.reactionChanged(id, name);
  }

  async unreact(accountId: string, id: string, name: string): Promise<void> {
    await this.existing(id);
    await this.repo.unreact(id, accountId, name);
    await this.reactionChanged(id, name);
  }

  /** Every user's stream hears the new count (Mastodon's announcement.reaction). */
  private async reactionChanged(id: string, name: string): Promise<void> {
    this.ctx.events.emit('announcement.reaction', {
      announcementId: id,
      name,
      count: await this.repo.reactionCount(id, name),
    });
  }
}

function parseTime(value: string | undefined, field: string): string | null {
  if (value === undefined || value === '') return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw unprocessable(`Validation failed: ${field} is not a valid time`);
  return new Date(ms).toISOString();
}
