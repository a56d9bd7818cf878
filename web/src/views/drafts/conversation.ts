/**
 * The conversation a draft or a scheduled message belongs to, as the Drafts and Scheduled
 * messages lists use it: its label, the compose box's target for it, showing it, and whether it
 * is the one in view.
 */
import { dmKeyOf, dmNames, model, streamName, topicDisplay, type Draft, type ScheduledMessage } from "../../model";
import { go } from "../../navigate";
import { conversationNarrow } from "../../state/hash";

type Conversation = Pick<Draft | ScheduledMessage, "type" | "to" | "topic">;

const channelOf = (c: Conversation) => (Array.isArray(c.to) ? c.to[0] : c.to);
const peopleOf = (c: Conversation) => (Array.isArray(c.to) ? c.to : []);

/** "#Verona › castle", "DM with Othello, Iago", or "No recipient" for a draft without one. */
export function conversationLabel(c: Conversation): string {
  if (c.type === "stream") return `#${streamName(channelOf(c))} › ${topicDisplay(c.topic ?? "")}`;
  const people = peopleOf(c);
  if (!people.length) return "No recipient";
  const key = dmKeyOf(people);
  return key === String(model.me.user_id) ? "DM with yourself" : `DM with ${dmNames(key)}`;
}

/** The compose box's target for a draft or a scheduled message. */
export function composeTargetOf(c: Conversation): { kind: "stream" | "dm"; streamId?: number; topic?: string; to?: number[] } {
  if (c.type === "stream") return { kind: "stream", streamId: channelOf(c), topic: c.topic ?? "" };
  if (c.type === "private") return { kind: "dm", to: peopleOf(c) };
  // A draft written before choosing where it goes.
  return { kind: "stream" };
}

/** Shows the conversation a draft or a scheduled message belongs to, as Zulip does on restoring one. */
export function goToConversation(c: Conversation): void {
  if (c.type !== "stream" && !peopleOf(c).length) return;
  go(conversationNarrow({ id: 0, type: c.type === "stream" ? "stream" : "private", stream_id: channelOf(c), subject: c.topic ?? "", dmUserIds: peopleOf(c) }, model.me.user_id));
}

/** Whether the conversation in view is this one: its drafts are listed first. */
export function isConversationInView(c: Conversation): boolean {
  if (model.view !== "narrow") return false;
  const narrow = model.narrow;
  if (c.type === "stream") {
    const channel = narrow.find((t) => t.operator === "channel")?.operand;
    const topic = narrow.find((t) => t.operator === "topic")?.operand;
    return channel === channelOf(c) && typeof topic === "string" && topic.toLowerCase() === (c.topic ?? "").toLowerCase();
  }
  const dm = narrow.find((t) => t.operator === "dm")?.operand;
  return Array.isArray(dm) && peopleOf(c).length > 0 && dmKeyOf(dm as number[]) === dmKeyOf(peopleOf(c));
}
