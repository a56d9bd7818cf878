/** The users the caller has muted. */
import { registerStateSection } from "../state.js";
import { mutedUsersRegisterState } from "../../actions/muted_users.js";

registerStateSection({
  name: "muted_users",
  fetchTypes: ["muted_users"],
  eventTypes: ["muted_users"],
  fetch: ({ app, user }) => mutedUsersRegisterState(app.db, user.id),
  // Each event carries the whole list.
  apply(state, event) {
    state.muted_users = event.muted_users;
  },
});
