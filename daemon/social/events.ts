/**
 * The social instance's internal event bus. Streaming (timelines, notifications) and federation
 * (deliveries) subscribe here instead of being called by the services. Ids are strings.
 */
import { EventEmitter } from 'node:events';

export interface SocialEvents {
  'status.created': [{ statusId: string; accountId: string }];
  'status.updated': [{ statusId: string; accountId: string }];
  'status.deleted': [{ statusId: string; accountId: string; uri: string }];
  /** A vote was cast (by `accountId`, local or a peer) in the poll of `statusId`. */
  'poll.voted': [{ pollId: string; statusId: string; accountId: string; choices: number[] }];
  'poll.ended': [{ pollId: string; statusId: string; accountId: string }];
  'notification.created': [{ notificationId: string; accountId: string; type: string }];
  'notifications.removed': [{ accountId: string }];
  'follow.created': [{ accountId: string; targetAccountId: string; pending: boolean }];
  'follow.removed': [{ accountId: string; targetAccountId: string }];
  'follow_request.authorized': [{ accountId: string; targetAccountId: string }];
  'follow_request.rejected': [{ accountId: string; targetAccountId: string }];
  'favourite.created': [{ accountId: string; statusId: string }];
  'favourite.removed': [{ accountId: string; statusId: string }];
  'reblog.created': [{ accountId: string; statusId: string; reblogId: string }];
  'reblog.removed': [{ accountId: string; statusId: string; reblogId: string }];
  'block.created': [{ accountId: string; targetAccountId: string }];
  /** A local account's report that asked to be forwarded to the reported account's server. */
  'report.forwarded': [{ reportId: string }];
  'block.removed': [{ accountId: string; targetAccountId: string }];
  'mute.changed': [{ accountId: string; targetAccountId: string; muted: boolean }];
  'account.created': [{ accountId: string }];
  'account.updated': [{ accountId: string }];
  'marker.updated': [{ accountId: string; timeline: string }];
  'filters.changed': [{ accountId: string }];
  'announcement.reaction': [{ announcementId: string; name: string; count: number }];
}

export class SocialEventBus extends EventEmitter<SocialEvents> {
  constructor() {
    super();
    // Many subscribers (streaming connections) are expected.
    this.setMaxListeners(0);
  }
}
