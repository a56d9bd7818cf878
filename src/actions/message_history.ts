/** GET /messages/{id}/history. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { messageHistory, type EditHistoryPolicy, type HistoryEntry, type StoredEdit } from "../domain/message_history.js";
import { accessMessage } from "./messages.js";

export async function getMessageHistory(app: AppContext, caller: Caller, messageId: number, allowEmptyTopicName: boolean): Promise<HistoryEntry[]> {
  // Not stored until PATCH /realm sets it; Zulip's default shows everything.
  const props = caller.realm.props as Record<string, unknown>;
  const policy = (props.message_edit_history_visibility_policy ?? "all") as EditHistoryPolicy;
  if (policy === "none") throw badRequest("Message edit history is disabled in this organization");
  const { message } = await accessMessage(app, app.db, caller.user, messageId);
  const stored = message.edit_history ? (JSON.parse(message.edit_history) as StoredEdit[]) : [];
  return messageHistory(
    {
      content: message.content,
      renderedContent: message.rendered_content,
      topic: message.topic,
      isChannelMessage: message.stream_id !== null,
      senderId: message.sender_id,
      dateSent: Number(message.date_sent),
    },
    stored,
    allowEmptyTopicName,
    policy,
  );
}
