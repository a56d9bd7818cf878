/** The `presence` section: everyone's presence, in the format the client registered for. */
import { registerStateSection } from "../state.js";
import { fetchPresence } from "../../actions/presence.js";

registerStateSection({
  name: "presence",
  fetchTypes: ["presence"],
  eventTypes: ["presence"],
  async fetch({ app, realm, user, options }) {
    const modern = options.slimPresence || Boolean(options.capabilities.simplified_presence_events);
    const r = await fetchPresence(app, realm, user, { modern, historyLimitDays: options.presenceHistoryLimitDays });
    return { presences: r.presences, presence_last_update_id: r.presence_last_update_id, server_timestamp: r.server_timestamp };
  },
  apply(state, event) {
    const presences = state.presences as Record<string, unknown>;
    if (event.presences) {
      Object.assign(presences, event.presences);
      return;
    }
    const website = (event.presence as { website: { status: string; timestamp: number } }).website;
    if ("email" in event) {
      presences[String(event.email)] = { aggregated: { client: "website", status: website.status, timestamp: website.timestamp }, website };
    } else {
      // A slim-format client keys by user id; the legacy entry says when the user was last active or seen.
      const key = String(event.user_id);
      const known = presences[key] as { active_timestamp: number } | undefined;
      const active = website.status === "active" ? website.timestamp : (known?.active_timestamp ?? website.timestamp);
      presences[key] = { active_timestamp: active, idle_timestamp: website.timestamp };
    }
  },
});
