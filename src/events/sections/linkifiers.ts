/** The organization's linkifiers (`realm_linkifiers`, legacy `realm_filters`) and code playgrounds. */
import { registerStateSection } from "../state.js";
import { listLinkifiers } from "../../store/linkifiers.js";
import { listPlaygrounds } from "../../store/playgrounds.js";

// Clients that do not declare `linkifier_url_template` cannot read URL templates: they get an
// empty list, and no events (see shaping).
registerStateSection({
  name: "realm_linkifiers",
  fetchTypes: ["realm_linkifiers"],
  eventTypes: ["realm_linkifiers"],
  async fetch({ app, realm, options }) {
    return { realm_linkifiers: options.capabilities.linkifier_url_template ? await listLinkifiers(app.db, realm.id) : [] };
  },
  apply(state, event) {
    state.realm_linkifiers = event.realm_linkifiers;
  },
});

registerStateSection({
  name: "realm_filters",
  fetchTypes: ["realm_filters"],
  fetch: async () => ({ realm_filters: [] }),
});

registerStateSection({
  name: "realm_playgrounds",
  fetchTypes: ["realm_playgrounds"],
  eventTypes: ["realm_playgrounds"],
  async fetch({ app, realm }) {
    return { realm_playgrounds: await listPlaygrounds(app.db, realm.id) };
  },
  apply(state, event) {
    state.realm_playgrounds = event.realm_playgrounds;
  },
});
