/** What each user keeps for themself: drafts, saved snippets and alert words. */
import { registerStateSection } from "../state.js";
import { draftsRegisterState } from "../../actions/drafts.js";
import { savedSnippetsRegisterState } from "../../actions/saved_snippets.js";
import { alertWordsRegisterState } from "../../actions/alert_words.js";

registerStateSection({
  name: "drafts",
  fetchTypes: ["drafts"],
  eventTypes: ["drafts"],
  fetch: ({ app, user }) => draftsRegisterState(app.db, user.id),
});

registerStateSection({
  name: "saved_snippets",
  fetchTypes: ["saved_snippets"],
  eventTypes: ["saved_snippets"],
  fetch: ({ app, user }) => savedSnippetsRegisterState(app.db, user.id),
});

registerStateSection({
  name: "alert_words",
  fetchTypes: ["alert_words"],
  eventTypes: ["alert_words"],
  fetch: ({ app, user }) => alertWordsRegisterState(app.db, user.id),
  apply(state, event) {
    state.alert_words = event.alert_words;
  },
});
