/** Channels and the caller's subscriptions: the `subscription`, `stream` and `default_streams` sections. */
import { registerStateSection, type StateContext } from "../state.js";
import { listStreamsFor } from "../../actions/streams.js";
import { listSubscriptions } from "../../actions/subscriptions.js";
import { defaultStreamIds } from "../../store/streams.js";

/** Every channel the user can see; archived ones only for clients that declared `archived_channels`. */
const allVisibleOptions = (archivedChannels: boolean | undefined) => ({
  includePublic: true,
  includeWebPublic: true,
  includeSubscribed: true,
  excludeArchived: !archivedChannels,
  includeAll: true,
  includeDefault: false,
  includeOwnerSubscribed: false,
  includeCanAccessContent: false,
});

/**
 * Both the `subscription` and the `stream` sections show every visible channel: read once per
 * register. Each section gets its own objects, since queued events may change one and not the other.
 */
async function allVisible(ctx: StateContext): Promise<Record<string, unknown>[]> {
  const archived = ctx.options.capabilities.archived_channels;
  const shared = await ctx.memo("visible channels", () => listStreamsFor(ctx.app, ctx.user, allVisibleOptions(archived)));
  return shared.map((s) => ({ ...s }));
}

registerStateSection({
  name: "subscription",
  fetchTypes: ["subscription"],
  async fetch(ctx) {
    const { app, user, options } = ctx;
    const archived = options.capabilities.archived_channels;
    const subscriptions = await listSubscriptions(app, user, options.includeSubscribers !== false, archived);
    const subscribed = new Set(subscriptions.map((s) => s.stream_id as number));
    const visible = await allVisible(ctx);
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
  async fetch(ctx) {
    return { streams: await allVisible(ctx) };
  },
});

registerStateSection({
  name: "default_streams",
  fetchTypes: ["default_streams"],
  async fetch({ app, realm }) {
    return { realm_default_streams: [...(await defaultStreamIds(app.db, realm.id))].sort((a, b) => a - b) };
  },
});
