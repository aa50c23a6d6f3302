/**
 * The instance records: v1 (Mastodon 4.5 V1::InstanceSerializer) with the streaming address in
 * urls.streaming_api, and v2 with it in configuration.urls.streaming, the banner (thumbnail) and
 * api_versions (so clients know grouped notifications exist).
 */
import { VERSION } from '../../version.js';
import { DEFAULT_DESCRIPTION, DEFAULT_TITLE, type Identity } from './identity.js';
import type { AccountJson } from '../accounts/serialize.js';
import { MAX_ATTACHMENTS, MAX_DESCRIPTION } from '../media/service.js';
import { AV_LIMIT_BYTES, IMAGE_LIMIT_BYTES } from '../media/detect.js';
import { MAX_CHARS } from '../statuses/service.js';

export const MASTODON_VERSION = `4.5.0 (compatible; Nestbox ${VERSION})`;
export const API_VERSIONS = { mastodon: 7 };

export interface InstanceFacts {
  domain: string;
  baseUrl: string;
  streamingWs: string;
  registrations: 'open' | 'approval' | 'closed';
  stats: { users: number; statuses: number; domains: number; active_month: number };
  rules: Array<{ id: number; text: string; hint: string }>;
  contact: { account: AccountJson | null; email: string };
  vapidKey: string;
  publicPreview: boolean;
  identity: Identity;
}

const MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/heic',
  'image/heif',
  'image/avif',
  'video/webm',
  'video/mp4',
  'video/quicktime',
  'audio/wave',
  'audio/wav',
  'audio/x-wav',
  'audio/ogg',
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/flac',
  'audio/aac',
];

export const TITLE = DEFAULT_TITLE;
const DESCRIPTION = DEFAULT_DESCRIPTION;

/** About pages (Mastodon's ExtendedDescription and PrivacyPolicy entities): what the box is and where its data goes. */
export function extendedDescription(): { updated_at: string | null; content: string } {
  return {
    updated_at: null,
    content: `<p>${DESCRIPTION} It belongs to the household that runs it: its accounts are theirs and their guests'.</p>`,
  };
}

export function privacyPolicy(): { updated_at: string; content: string } {
  return {
    updated_at: '2026-11-22T00:00:00.000Z',
    content: [
      "<p>This server runs on a Nestbox appliance in its owner's home. What you store here (your account, posts, media and",
      'settings) stays on the box.</p><p>Posts leave it only as their visibility says: public, unlisted and followers-only posts',
      'are delivered to the servers of your followers, and direct messages to the servers of the accounts they mention. Those',
      'servers keep their copies under their own rules.</p><p>Passwords are stored only as salted hashes and access tokens only',
      'as hashes. There are no trackers and no analytics.</p>',
    ].join(' '),
  };
}

function statusesConfig() {
  return { max_characters: MAX_CHARS, max_media_attachments: MAX_ATTACHMENTS, characters_reserved_per_url: 23 };
}

function mediaConfig() {
  return {
    supported_mime_types: MIME_TYPES,
    description_limit: MAX_DESCRIPTION,
    image_size_limit: IMAGE_LIMIT_BYTES,
    image_matrix_limit: 3840 * 3840,
    video_size_limit: AV_LIMIT_BYTES,
    video_frame_rate_limit: 120,
    video_matrix_limit: 8294400,
  };
}

const POLLS = { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2629746 };
const rules = (facts: InstanceFacts) =>
  facts.rules.map((rule) => ({ id: String(rule.id), text: rule.text, hint: rule.hint }));

export function instanceV1(facts: InstanceFacts): Record<string, unknown> {
  return {
    uri: facts.domain,
    title: facts.identity.title,
    short_description: facts.identity.short_description,
    description: facts.identity.short_description,
    email: facts.contact.email,
    version: MASTODON_VERSION,
    urls: { streaming_api: facts.streamingWs },
    stats: { user_count: facts.stats.users, status_count: facts.stats.statuses, domain_count: facts.stats.domains },
    thumbnail: `${facts.baseUrl}/avatars/original/missing.png`,
    languages: [facts.identity.language],
    registrations: facts.registrations !== 'closed',
    approval_required: facts.registrations === 'approval',
    invites_enabled: true,
    configuration: {
      accounts: { max_featured_tags: 10 },
      statuses: statusesConfig(),
      media_attachments: mediaConfig(),
      polls: POLLS,
    },
    contact_account: facts.contact.account,
    rules: rules(facts),
  };
}

export function instanceV2(facts: InstanceFacts): Record<string, unknown> {
  return {
    domain: facts.domain,
    title: facts.identity.title,
    version: MASTODON_VERSION,
    source_url: 'https://github.com/nestbox/nestbox',
    description: facts.identity.short_description,
    usage: { users: { active_month: facts.stats.active_month } },
    thumbnail: { url: `${facts.baseUrl}/avatars/original/missing.png`, blurhash: null, versions: {} },
    icon: [],
    languages: [facts.identity.language],
    configuration: {
      urls: {
        streaming: facts.streamingWs,
        status: null,
        about: `${facts.baseUrl}/about`,
        privacy_policy: null,
        terms_of_service: null,
      },
      vapid: { public_key: facts.vapidKey },
      accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
      statuses: statusesConfig(),
      media_attachments: mediaConfig(),
      polls: POLLS,
      translation: { enabled: false },
      timelines_access: timelinesAccess(facts.publicPreview ? 'public' : 'authenticated'),
      limited_federation: false,
    },
    registrations: {
      enabled: facts.registrations !== 'closed',
      approval_required: facts.registrations === 'approval',
      reason_required: facts.registrations === 'approval',
      message: null,
      url: null,
    },
    api_versions: API_VERSIONS,
    contact: { email: facts.contact.email, account: facts.contact.account },
    rules: rules(facts),
  };
}

export function streamingWsUrl(streamingUrl: string): string {
  return streamingUrl.replace(/^http/, 'ws');
}

function timelinesAccess(level: string) {
  const both = { local: level, remote: level };
  return { live_feeds: both, hashtag_feeds: both, trending_link_feeds: both };
}
