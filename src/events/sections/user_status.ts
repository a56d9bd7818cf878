/** The `user_status` section: each accessible user's non-default status, by user id. */
import { registerStateSection } from "../state.js";
import { userStatusState } from "../../actions/user_status.js";
import { applyUserStatusEvent, type StatusMap } from "../../domain/user_status.js";

registerStateSection({
  name: "user_status",
  fetchTypes: ["user_status"],
  eventTypes: ["user_status"],
  async fetch({ app, realm, user }) {
    return { user_status: await userStatusState(app, { user, realm, clientName: "" }) };
  },
  apply(state, event) {
    applyUserStatusEvent(state.user_status as StatusMap, event);
  },
});
