/** The `user_status` section: each accessible user's non-default status, by user id. */
import { registerStateSection } from "../state.js";
import { userStatusState } from "../../actions/user_status.js";

type Status = Record<string, unknown>;

registerStateSection({
  name: "user_status",
  fetchTypes: ["user_status"],
  eventTypes: ["user_status"],
  async fetch({ app, realm, user }) {
    return { user_status: await userStatusState(app, { user, realm, clientName: "" }) };
  },
  apply(state, event) {
    const all = state.user_status as Record<string, Status>;
    const key = String(event.user_id);
    const status: Status = { ...all[key] };
    if (event.away === true) status.away = true;
    if (event.away === false) delete status.away;
    if (typeof event.status_text === "string") {
      if (event.status_text) status.status_text = event.status_text;
      else delete status.status_text;
    }
    if (typeof event.emoji_name === "string") {
      for (const field of ["emoji_name", "emoji_code", "reaction_type"]) {
        if (event.emoji_name) status[field] = event[field];
        else delete status[field];
      }
    }
    if (Object.keys(status).length) all[key] = status;
    else delete all[key];
  },
});
