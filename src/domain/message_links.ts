/** How Zulip's notices link to a message: a URL to the conversation, and channel message link syntax. */
import { hashEncode } from "../markdown/patterns.js";

/** Zulip's slug for a direct-message conversation: its sorted user ids, marked `-group` for three or more. */
function directMessageSlug(userIds: number[]): string {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  return ids.join(",") + (ids.length >= 3 ? "-group" : "");
}

export type LinkedMessage =
  | { id: number; channel: { id: number; name: string; topic: string } }
  | { id: number; participantIds: number[] };

export function messageUrl(realmUrl: string, m: LinkedMessage): string {
  if ("channel" in m) {
    const { id, name, topic } = m.channel;
    return `${realmUrl}/#narrow/channel/${id}-${hashEncode(name.replace(/ /g, "-"))}/topic/${hashEncode(topic)}/near/${m.id}`;
  }
  return `${realmUrl}/#narrow/dm/${directMessageSlug(m.participantIds)}/near/${m.id}`;
}

/** `#**channel>topic@id**`, which renders as a link to the message. */
export const channelMessageLinkSyntax = (channelName: string, topic: string, messageId: number) => `#**${channelName}>${topic}@${messageId}**`;
