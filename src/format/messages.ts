/** How a message is shown in the API (MessagesBase at feature level 420). */
import type { MessageRow } from "../store/messages.js";
import type { UserRow } from "../store/users.js";
import { displayTopic } from "../domain/topics.js";
import { clientComputesAvatar } from "./users.js";
import { avatarUrl } from "../media/avatars.js";
import { topicLinks } from "../markdown/topic_links.js";
import type { Linkifier } from "../markdown/linkifiers.js";
import type { MessageReaction } from "../store/reactions.js";
import type { Submessage } from "../store/submessages.js";

export interface MessageContext {
  realmStringId: string;
  users: Map<number, UserRow>;
  streamNames: Map<number, string>;
  /** The organization's linkifiers, in order, for `topic_links`. */
  linkifiers?: readonly Linkifier[];
  /** Each message's reactions, loaded for the whole page at once. */
  reactions?: Map<number, MessageReaction[]>;
  /** Each message's submessages (widgets), likewise. */
  submessages?: Map<number, Submessage[]>;
}

export interface MessageFormatOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

/** Gravatar URLs are left to clients that compute them, when the address is public. */
function senderAvatar(sender: UserRow, clientGravatar: boolean): string | null {
  return clientGravatar && clientComputesAvatar(sender) ? null : avatarUrl(sender);
}

/** Names a form of the answer, one per combination of the options. */
export function formatKey(opts: MessageFormatOptions): string {
  return `${+opts.applyMarkdown}${+opts.clientGravatar}${+opts.allowEmptyTopicName}`;
}

/**
 * The message's JSON without its closing brace: the same for every reader, kept (see
 * MessageCache) and followed by each reader's own fields.
 */
export function messageJsonHead(m: MessageRow, ctx: MessageContext, opts: MessageFormatOptions): Buffer {
  return Buffer.from(JSON.stringify(formatMessage(m, ctx, opts)).slice(0, -1));
}

export function formatMessage(m: MessageRow, ctx: MessageContext, opts: MessageFormatOptions): Record<string, unknown> {
  const sender = ctx.users.get(m.sender_id)!;
  const isStream = m.stream_id !== null;
  const displayRecipient = isStream
    ? (ctx.streamNames.get(m.stream_id!) ?? "")
    : m
        .dm_key!.split(",")
        .map(Number)
        .map((id) => ctx.users.get(id)!)
        .map((u) => ({ id: u.id, email: u.email, full_name: u.full_name, is_mirror_dummy: false }));
  const out: Record<string, unknown> = {
    id: m.id,
    sender_id: m.sender_id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: ctx.realmStringId,
    avatar_url: senderAvatar(sender, opts.clientGravatar),
    client: m.client,
    content: opts.applyMarkdown ? m.rendered_content : m.content,
    content_type: opts.applyMarkdown ? "text/html" : "text/x-markdown",
    display_recipient: displayRecipient,
    recipient_id: m.recipient_id,
    subject: isStream ? displayTopic(m.topic, opts.allowEmptyTopicName) : "",
    topic_links: topicLinks(m.topic, ctx.linkifiers ?? []),
    is_me_message: /^\/me\s/.test(m.content),
    reactions: ctx.reactions?.get(m.id) ?? [],
    submessages: ctx.submessages?.get(m.id) ?? [],
    timestamp: Number(m.date_sent),
    type: isStream ? "stream" : "private",
  };
  if (isStream) out.stream_id = m.stream_id;
  if (m.last_edit_time !== null) out.last_edit_timestamp = Number(m.last_edit_time);
  if (m.last_moved_time !== null) out.last_moved_timestamp = Number(m.last_moved_time);
  if (m.edit_history) out.edit_history = JSON.parse(m.edit_history);
  return out;
}
