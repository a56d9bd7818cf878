/** `starred_messages`: ids of the messages the user starred. */
import { registerStateSection } from "../state.js";
import { starredMessageIds } from "../../store/message_flags.js";

registerStateSection({
  name: "starred_messages",
  fetchTypes: ["starred_messages"],
  eventTypes: ["update_message_flags"],
  fetch: async ({ app, user }) => ({ starred_messages: await starredMessageIds(app.db, user.id) }),
  apply(state, event) {
    if (event.flag !== "starred") return;
    const ids = (event.messages as number[]) ?? [];
    const starred = new Set(state.starred_messages as number[]);
    for (const id of ids) {
      if (event.op === "add") starred.add(id);
      else starred.delete(id);
    }
    state.starred_messages = [...starred].sort((a, b) => a - b);
  },
});
