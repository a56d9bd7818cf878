/** Channels and the caller's subscriptions: the `subscription`, `stream` and `default_streams` sections. */
import { registerStateSection } from "../state.js";
import { listStreamsFor } from "../../actions/streams.js";
import { listSubscriptions } from "../../actions/subscriptions.js";
import { defaultStreamIds } from "../../store/streams.js";

/** Every channel the user can see; archived ones only for clients that declared `archived_channels`. */
const allVisible = (archivedChannels: boolean | undefined) => ({
  includePublic: true,
  includeWebPublic: true,
  includeSubscribed: true,
  excludeArchived: !archivedChannels,
  includeAll: true,
  includeDefault: false,
  includeOwnerSubscribed: false,
  includeCanAccessContent: false,
});

registerStateSection({
  name: "subscription",
  fetchTypes: ["subscription"],
  async fetch({ app, user, options }) {
    const archived = options.capabilities.archived_channels;
    const subscriptions = await listSubscriptions(app, user, options.includeSubscribers !== false, archived);
    const subscribed = new Set(subscriptions.map((s) => s.stream_id as number));
    const visible = await listStreamsFor(app, user, allVisible(archived));
    const formerly = new Set(
      (
        await app.db.selectFrom("subscriptions").select("stream_id").where("user_id", "=", user.id).where("active", "=", 0).execute()
      ).map((r) => r.stream_id),
    );
    const others = visible.filter((s) => !subscribed.has(s.stream_id as number));
    return {
      subscriptions,
      unsubscribed: others.filter((s) => formerly.has(s.stream_id as number)),
      never_subscribed: others.filter((s) => !formerly.has(s.stream_id as number)),
    };
  },
});

registerStateSection({
  name: "stream",
  fetchTypes: ["stream"],
  async fetch({ app, user, options }) {
    return { streams: await listStreamsFor(app, user, allVisible(options.capabilities.archived_channels)) };
  },
});

registerStateSection({
  name: "default_streams",
  fetchTypes: ["default_streams"],
  async fetch({ app, realm }) {
    return { realm_default_streams: [...(await defaultStreamIds(app.db, realm.id))].sort((a, b) => a - b) };
  },
});
