/** The organization's custom emoji (`realm_emoji`), deactivated ones included. */
import { registerStateSection } from "../state.js";
import { realmEmojiDict } from "../../actions/realm_emoji.js";

registerStateSection({
  name: "realm_emoji",
  fetchTypes: ["realm_emoji"],
  eventTypes: ["realm_emoji"],
  async fetch({ app, realm }) {
    return { realm_emoji: await realmEmojiDict(app.db, realm.id) };
  },
  apply(state, event) {
    state.realm_emoji = event.realm_emoji;
  },
});
