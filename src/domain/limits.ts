/** Zulip's limits and server constants, as reported by POST /register. */
export const LIMITS = {
  maxStreamNameLength: 60,
  maxStreamDescriptionLength: 1024,
  maxTopicLength: 60,
  maxMessageLength: 10000,
  maxChannelFolderNameLength: 60,
  maxChannelFolderDescriptionLength: 1024,
  maxUserGroupNameLength: 100,
  maxUserGroupDescriptionLength: 1024,
  maxFullNameLength: 100,
  minFullNameLength: 2,
  maxBulkNewSubscriptionMessages: 100,
} as const;

export const FEATURE_LEVEL = 420;
export const ZULIP_VERSION = "11.0";
export const EMPTY_TOPIC_DISPLAY_NAME = "general chat";
