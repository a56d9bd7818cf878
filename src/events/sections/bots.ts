/** Bot-related register keys: the bots a user administers and the bot kinds the server offers. */
import { registerStateSection } from "../state.js";
import { isAdmin } from "../../domain/roles.js";
import { realmBots } from "../../store/register_extras.js";
import { botExtras } from "../../store/bots.js";
import { botDict } from "../../actions/bots.js";
import { allIntegrations } from "../../integrations/registry.js";

// Administrators administer every bot of the organization, everyone else only the bots they own.
registerStateSection({
  name: "realm_bots",
  fetchTypes: ["realm_bot"],
  eventTypes: ["realm_bot"],
  async fetch({ app, user, realm }) {
    const bots = await realmBots(app.db, realm.id, isAdmin(user.role) ? undefined : user.id);
    const extras = await botExtras(app.db, bots.map((b) => b.id));
    return { realm_bots: bots.map((bot) => botDict(bot, extras.get(bot.id)!)) };
  },
});

// Confab ships no embedded bots.
registerStateSection({
  name: "realm_embedded_bots",
  fetchTypes: ["realm_embedded_bots"],
  fetch: async () => ({ realm_embedded_bots: [] }),
});

// The integrations a bot's URL can name. Their event types are not listed (null, which Zulip's
// schema allows), nor options beyond the URL parameters every integration takes.
registerStateSection({
  name: "realm_incoming_webhook_bots",
  fetchTypes: ["realm_incoming_webhook_bots"],
  fetch: async () => ({
    realm_incoming_webhook_bots: allIntegrations().map((i) => ({ name: i.name, display_name: i.displayName, all_event_types: null, config_options: [], url_options: [] })),
  }),
});
