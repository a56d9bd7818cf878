/**
 * Background work that changes only how a message looks (a thumbnail made, a link preview
 * fetched) stores the new HTML and tells the message's readers with Zulip's rendering-only
 * `update_message`: no editor, no "(edited)", each reader's own flags.
 */
import type { AppContext } from "../context.js";
import type { PendingEvents, Tx } from "./run.js";
import { flagsForApi } from "../domain/message_flags.js";

export async function storeRerenderedMessage(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  realmId: number,
  message: { id: number; content: string },
  rendered: string,
): Promise<void> {
  await tx.updateTable("messages").set({ rendered_content: rendered }).where("id", "=", message.id).execute();
  const readers = await tx.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", message.id).orderBy("user_id").execute();
  if (!readers.length) return;
  events.send({
    realmId,
    event: {
      type: "update_message",
      user_id: null,
      edit_timestamp: Math.floor(app.clock.now()),
      message_id: message.id,
      message_ids: [message.id],
      content: message.content,
      rendered_content: rendered,
      rendering_only: true,
    },
    userIds: readers.map((r) => r.user_id),
    perUser: new Map(readers.map((r) => [r.user_id, { flags: flagsForApi(r.flags) }])),
  });
}
