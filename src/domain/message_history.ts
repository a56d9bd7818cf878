/**
 * GET /messages/{id}/history: the stored edit history (newest edit first, each entry holding only
 * what changed) turned into Zulip's `message_history`, oldest first, every entry showing the
 * topic and content as they were after it.
 */
import { highlightHtmlDifferences } from "./html_diff.js";
import { displayTopic } from "./topics.js";

export interface StoredEdit {
  user_id: number;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_topic?: string;
  topic?: string;
  prev_stream?: number;
  stream?: number;
}

export interface HistoryMessage {
  content: string;
  renderedContent: string;
  topic: string;
  isChannelMessage: boolean;
  senderId: number;
  dateSent: number;
}

export type HistoryEntry = Record<string, unknown>;

/** The organization's `message_edit_history_visibility_policy`. */
export type EditHistoryPolicy = "all" | "moves_only" | "none";

export function messageHistory(message: HistoryMessage, stored: StoredEdit[], allowEmptyTopicName: boolean, policy: EditHistoryPolicy): HistoryEntry[] {
  const shownTopic = (topic: string) => (message.isChannelMessage ? displayTopic(topic, allowEmptyTopicName) : "");
  let content = message.content;
  let rendered = message.renderedContent;
  let topic = shownTopic(message.topic);
  const entries: HistoryEntry[] = [];
  for (const edit of stored) {
    const entry: HistoryEntry = { content, rendered_content: rendered, timestamp: edit.timestamp, topic, user_id: edit.user_id };
    if (edit.prev_topic !== undefined) {
      topic = shownTopic(edit.prev_topic);
      entry.prev_topic = topic;
    }
    if (edit.prev_content !== undefined) {
      entry.prev_content = edit.prev_content;
      entry.prev_rendered_content = edit.prev_rendered_content;
      entry.content_html_diff = highlightHtmlDifferences(edit.prev_rendered_content ?? "", rendered);
      content = edit.prev_content;
      rendered = edit.prev_rendered_content ?? "";
    }
    if (edit.prev_stream !== undefined) {
      entry.prev_stream = edit.prev_stream;
      entry.stream = edit.stream;
    }
    entries.push(entry);
  }
  entries.push({ content, rendered_content: rendered, timestamp: message.dateSent, topic, user_id: message.senderId });
  return visibleEntries(entries, policy).reverse();
}

/** Where only moves are shown, content edits are hidden: dropped, or stripped if they also moved the message. */
function visibleEntries(entries: HistoryEntry[], policy: EditHistoryPolicy): HistoryEntry[] {
  if (policy === "all") return entries;
  const visible: HistoryEntry[] = [];
  for (const entry of entries) {
    if ("prev_content" in entry) {
      if (!("prev_topic" in entry)) continue;
      delete entry.prev_content;
      delete entry.prev_rendered_content;
      delete entry.content_html_diff;
    }
    visible.push(entry);
  }
  return visible;
}
