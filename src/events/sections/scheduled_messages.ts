/** The `scheduled_messages` section: the user's messages not sent yet, the earliest first. */
import { registerStateSection, type StateContext } from "../state.js";
import { scheduledMessagesAmong } from "../../actions/scheduled_messages.js";
import { sortScheduledMessages, type ApiScheduledMessage } from "../../domain/scheduled_messages.js";
import { undeliveredScheduledMessages } from "../../store/scheduled_messages.js";

/** The user's undelivered messages and reminders, read once for this section and `reminders`. */
export const undeliveredOf = (ctx: StateContext) => ctx.memo("undelivered scheduled messages", () => undeliveredScheduledMessages(ctx.app.db, ctx.user.id));

registerStateSection({
  name: "scheduled_messages",
  fetchTypes: ["scheduled_messages"],
  eventTypes: ["scheduled_messages"],
  fetch: async (ctx) => ({ scheduled_messages: scheduledMessagesAmong(await undeliveredOf(ctx)) }),
  apply(state, event) {
    const list = state.scheduled_messages as ApiScheduledMessage[];
    const without = (id: unknown) => list.filter((m) => m.scheduled_message_id !== id);
    let next: ApiScheduledMessage[];
    if (event.op === "add") {
      const added = event.scheduled_messages as ApiScheduledMessage[];
      next = [...list.filter((m) => !added.some((a) => a.scheduled_message_id === m.scheduled_message_id)), ...added];
    } else if (event.op === "update") {
      const updated = event.scheduled_message as ApiScheduledMessage;
      next = [...without(updated.scheduled_message_id), updated];
    } else {
      next = without(event.scheduled_message_id);
    }
    state.scheduled_messages = sortScheduledMessages(next);
  },
});
