/**
 * How the view answers a topic being moved (renamed, resolved, or sent to another channel)
 * while someone reads it: when the whole topic moves, or the rest of it from the message they
 * are on, the view goes with it, as Zulip's web app does; moving one message leaves it be.
 */
import type { Narrow } from "./narrow.js";

/** The fields of an `update_message` event that describe a move. */
export interface MoveEvent {
  stream_id?: number;
  new_stream_id?: number;
  orig_subject?: string;
  subject?: string;
  propagate_mode?: "change_one" | "change_later" | "change_all";
  message_ids?: number[];
}

const sameTopic = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The narrow to show instead of `narrow` after the move, or undefined to stay. */
export function narrowAfterMove(narrow: Narrow, e: MoveEvent, selectedId: number): Narrow | undefined {
  if (e.orig_subject === undefined || e.stream_id === undefined || !e.propagate_mode) return undefined;
  if (e.propagate_mode === "change_one") return undefined;
  if (e.propagate_mode === "change_later" && !(e.message_ids ?? []).includes(selectedId)) return undefined;
  const channel = narrow.find((t) => t.operator === "channel" && !t.negated);
  const topic = narrow.find((t) => t.operator === "topic" && !t.negated);
  if (!channel || !topic || channel.operand !== e.stream_id || !sameTopic(String(topic.operand), e.orig_subject)) return undefined;
  const streamId = e.new_stream_id ?? e.stream_id;
  const newTopic = e.subject ?? topic.operand;
  return narrow.map((t) => (t === channel ? { ...t, operand: streamId } : t === topic ? { ...t, operand: newTopic } : t));
}
