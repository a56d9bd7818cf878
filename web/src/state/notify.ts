/**
 * Which new messages raise a desktop notification or a sound, by Zulip's rules: direct
 * mentions and followed topics win over muting; muted channels and topics are otherwise quiet;
 * a channel's own setting (or the user's default for channels) covers all its messages; direct
 * messages, alert words and mentions follow the user's general switches.
 */
import { TopicPolicy } from "./inbox.js";

export interface NotifySettings {
  enable_desktop_notifications?: boolean;
  enable_sounds?: boolean;
  enable_stream_desktop_notifications?: boolean;
  enable_stream_audible_notifications?: boolean;
  enable_followed_topic_desktop_notifications?: boolean;
  enable_followed_topic_audible_notifications?: boolean;
  enable_followed_topic_wildcard_mentions_notify?: boolean;
  wildcard_mentions_notify?: boolean;
  notification_sound?: string;
}

/** A subscription's own notification settings; null means "as the user's default". */
export interface ChannelNotifySettings {
  is_muted: boolean;
  desktop_notifications?: boolean | null;
  audible_notifications?: boolean | null;
  wildcard_mentions_notify?: boolean | null;
}

export interface NotifyMessage {
  type: "stream" | "private";
  stream_id?: number;
  subject: string;
  sender_id: number;
  flags: string[];
}

export interface NotifyContext {
  myId: number;
  settings: NotifySettings;
  channel: (streamId: number) => ChannelNotifySettings | undefined;
  topicPolicy: (streamId: number, topic: string) => number | undefined;
  senderMuted: (userId: number) => boolean;
}

type Channel = "desktop" | "audible";

/** A channel's setting for all its messages, else the user's default for channels. */
function channelNotifies(ctx: NotifyContext, streamId: number, kind: Channel | "wildcard"): boolean {
  const sub = ctx.channel(streamId);
  const own = kind === "desktop" ? sub?.desktop_notifications : kind === "audible" ? sub?.audible_notifications : sub?.wildcard_mentions_notify;
  if (own !== null && own !== undefined) return own;
  const s = ctx.settings;
  return !!(kind === "desktop" ? s.enable_stream_desktop_notifications : kind === "audible" ? s.enable_stream_audible_notifications : s.wildcard_mentions_notify);
}

/** Whether anything about the message may notify at all, before the settings are asked. */
export function notifiable(m: NotifyMessage, ctx: NotifyContext): boolean {
  if (m.sender_id === ctx.myId || m.flags.includes("read") || ctx.senderMuted(m.sender_id)) return false;
  if (m.flags.includes("mentioned")) return true;
  if (m.type !== "stream" || m.stream_id === undefined) return true;
  const policy = ctx.topicPolicy(m.stream_id, m.subject);
  if (policy === TopicPolicy.FOLLOWED) return true;
  if (ctx.channel(m.stream_id)?.is_muted && policy !== TopicPolicy.UNMUTED) return false;
  return policy !== TopicPolicy.MUTED;
}

function wanted(m: NotifyMessage, ctx: NotifyContext, kind: Channel): boolean {
  const s = ctx.settings;
  const inChannel = m.type === "stream" && m.stream_id !== undefined;
  const followed = inChannel && ctx.topicPolicy(m.stream_id!, m.subject) === TopicPolicy.FOLLOWED;
  if (inChannel && channelNotifies(ctx, m.stream_id!, kind)) return true;
  if (followed && (kind === "desktop" ? s.enable_followed_topic_desktop_notifications : s.enable_followed_topic_audible_notifications)) return true;
  if (!(kind === "desktop" ? s.enable_desktop_notifications : s.enable_sounds)) return false;
  if (m.type === "private" || m.flags.includes("has_alert_word") || m.flags.includes("mentioned")) return true;
  const wildcard = m.flags.includes("stream_wildcard_mentioned") || m.flags.includes("topic_wildcard_mentioned") || m.flags.includes("wildcard_mentioned");
  if (!wildcard || !inChannel) return false;
  return channelNotifies(ctx, m.stream_id!, "wildcard") || (followed && !!s.enable_followed_topic_wildcard_mentions_notify);
}

/** What a newly arrived message should do: pop up a desktop notification, play the sound, both or neither. */
export function notificationsFor(m: NotifyMessage, ctx: NotifyContext): { desktop: boolean; sound: boolean } {
  if (!notifiable(m, ctx)) return { desktop: false, sound: false };
  return { desktop: wanted(m, ctx, "desktop"), sound: ctx.settings.notification_sound !== "none" && wanted(m, ctx, "audible") };
}
