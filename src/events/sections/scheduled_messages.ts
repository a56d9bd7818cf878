/** The `scheduled_messages` section: the user's messages not sent yet, the earliest first. */
import { registerStateSection } from "../state.js";
import { getScheduledMessages } from "../../actions/scheduled_messages.js";
import { sortScheduledMessages, type ApiScheduledMessage } from "../../domain/scheduled_messages.js";

registerStateSection({
  name: "scheduled_messages",
  fetchTypes: ["scheduled_messages"],
  eventTypes: ["scheduled_messages"],
  fetch: async ({ app, user }) => ({ scheduled_messages: await getScheduledMessages(app.db, user.id) }),
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
