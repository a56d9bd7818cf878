/** Bot-related register keys: the bots a user administers and the bot kinds the server offers. */
import { registerStateSection } from "../state.js";
import { isAdmin } from "../../domain/roles.js";
import { gravatarUrl } from "../../format/users.js";
import { realmBots } from "../../store/register_extras.js";
import type { UserRow } from "../../store/users.js";

function botDict(bot: UserRow): Record<string, unknown> {
  return {
    user_id: bot.id,
    full_name: bot.full_name,
    email: bot.email,
    api_key: bot.api_key,
    bot_type: bot.bot_type,
    is_active: bot.is_active === 1,
    avatar_url: gravatarUrl(bot.delivery_email),
    owner_id: bot.bot_owner_id,
    // Confab does not store per-bot default channels or outgoing services.
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    services: [],
  };
}

// Administrators administer every bot of the organization, everyone else only the bots they own.
registerStateSection({
  name: "realm_bots",
  fetchTypes: ["realm_bot"],
  eventTypes: ["realm_bot"],
  async fetch({ app, user, realm }) {
    const bots = await realmBots(app.db, realm.id, isAdmin(user.role) ? undefined : user.id);
    return { realm_bots: bots.map(botDict) };
  },
});

// Confab ships no embedded bots and no incoming-webhook integrations to configure.
registerStateSection({
  name: "realm_embedded_bots",
  fetchTypes: ["realm_embedded_bots"],
  fetch: async () => ({ realm_embedded_bots: [] }),
});

registerStateSection({
  name: "realm_incoming_webhook_bots",
  fetchTypes: ["realm_incoming_webhook_bots"],
  fetch: async () => ({ realm_incoming_webhook_bots: [] }),
});
