/** The parts of the API's status and account JSON the pages read (the renderer's output, already sanitised). */
export interface PageEmoji {
  shortcode: string;
  url: string;
}

export interface PageField {
  name: string;
  value: string;
  verified_at: string | null;
}

export interface PageAccount {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  note: string;
  url: string;
  uri: string;
  avatar: string;
  header: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  emojis: PageEmoji[];
  fields: PageField[];
}

export interface PageMedia {
  type: string;
  url: string;
  preview_url: string | null;
  description: string | null;
}

export interface PagePoll {
  expired: boolean;
  votes_count: number;
  options: Array<{ title: string; votes_count: number | null }>;
}

export interface PageStatus {
  id: string;
  created_at: string;
  url: string | null;
  uri: string;
  visibility: string;
  sensitive: boolean;
  spoiler_text: string;
  content: string;
  language: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  account: PageAccount;
  reblog: PageStatus | null;
  media_attachments: PageMedia[];
  poll: PagePoll | null;
  emojis: PageEmoji[];
}
