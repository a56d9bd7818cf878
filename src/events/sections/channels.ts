/** Channels and the caller's subscriptions: the `subscription`, `stream` and `default_streams` sections. */
import { registerStateSection, type StateContext } from "../state.js";
import { streamJsonFor } from "../../actions/streams.js";
import { formatSubscriptionsOf } from "../../actions/subscriptions.js";
import { allSubscriptionsOf, defaultStreamIds } from "../../store/streams.js";
import { channelSubscriberLists } from "../../actions/channel_context.js";
import { RawJson, extendRawObject } from "../../http/raw_json.js";

/** Every channel the user can see; archived ones only for clients that declared `archived_channels`. */
const allVisibleOptions = (archivedChannels: boolean | undefined) => ({
  includePublic: true,
  includeWebPublic: true,
  includeSubscribed: true,
  excludeArchived: !archivedChannels,
  includeAll: true,
  includeDefault: false as const,
  includeOwnerSubscribed: false,
  includeCanAccessContent: false,
});

interface ChannelJson {
  id: number;
  json: Buffer;
}

/**
 * Both the `subscription` and the `stream` sections show every visible channel: read once per
 * register, and serialized here. In a large organization that is a thousand channels per
 * register, most of its answer.
 */
function allVisible(ctx: StateContext): Promise<ChannelJson[]> {
  const archived = ctx.options.capabilities.archived_channels;
  return ctx.memo("visible channels", () => streamJsonFor(ctx.app, ctx.user, allVisibleOptions(archived)));
}

/** Every subscription of the user, active or left: read once for this section and the unread summary. */
export const subscriptionRowsOf = (ctx: StateContext) => ctx.memo("subscriptions", () => allSubscriptionsOf(ctx.app.db, ctx.user.id));

const [OPEN, COMMA, CLOSE] = ["[", ",", "]"].map((c) => Buffer.from(c));

/** The channels as a JSON array, laid end to end from their serialized entries. */
function jsonArray(channels: readonly ChannelJson[]): RawJson {
  const chunks: Buffer[] = [OPEN];
  channels.forEach((c, i) => {
    if (i) chunks.push(COMMA);
    chunks.push(c.json);
  });
  chunks.push(CLOSE);
  return new RawJson(chunks);
}

registerStateSection({
  name: "subscription",
  fetchTypes: ["subscription"],
  eventTypes: ["subscription", "stream"],
  async fetch(ctx) {
    const { app, user, options } = ctx;
    const archived = options.capabilities.archived_channels;
    const includeSubscribers = options.includeSubscribers !== false;
    const rows = await subscriptionRowsOf(ctx);
    const active = rows.filter((s) => s.active === 1);
    const subscriptions = await formatSubscriptionsOf(app, user, active, (r) => archived || !r.is_archived, includeSubscribers);
    const subscribed = new Set(subscriptions.map((s) => s.stream_id as number));
    const others = (await allVisible(ctx)).filter((s) => !subscribed.has(s.id));
    const visibleOthers = new Set(others.map((s) => s.id));
    // Channels left are shown as the subscriptions they were (color, notification settings).
    const former = rows.filter((s) => s.active === 0);
    const unsubscribed = await formatSubscriptionsOf(app, user, former, (r) => visibleOthers.has(r.id), includeSubscribers);
    const formerly = new Set(unsubscribed.map((s) => s.stream_id as number));
    const never = others.filter((s) => !formerly.has(s.id));
    return {
      subscriptions,
      unsubscribed,
      never_subscribed: jsonArray(includeSubscribers ? await withSubscribers(ctx, never) : never),
    };
  },
});

/**
 * The channels with their `subscribers`: anyone who may see a channel may list its subscribers
 * (as GET /streams/{stream_id}/members allows).
 */
async function withSubscribers(ctx: StateContext, channels: readonly ChannelJson[]): Promise<ChannelJson[]> {
  const subscribers = await channelSubscriberLists(ctx.app, ctx.app.db, channels.map((c) => c.id));
  return channels.map((c) => ({ id: c.id, json: extendRawObject({ subscribers: listJson(subscribers.get(c.id)!) }, new RawJson(c.json)) }));
}

const serializedLists = new WeakMap<readonly number[], RawJson>();

/** A subscriber list as JSON, made once per list: the cached lists are shared until they change. */
function listJson(list: readonly number[]): RawJson {
  let json = serializedLists.get(list);
  if (!json) serializedLists.set(list, (json = new RawJson(JSON.stringify(list))));
  return json;
}

registerStateSection({
  name: "stream",
  fetchTypes: ["stream"],
  eventTypes: ["stream"],
  async fetch(ctx) {
    return { streams: jsonArray(await allVisible(ctx)) };
  },
});

registerStateSection({
  name: "default_streams",
  fetchTypes: ["default_streams"],
  eventTypes: ["default_streams"],
  async fetch({ app, realm }) {
    return { realm_default_streams: [...(await defaultStreamIds(app.db, realm.id))].sort((a, b) => a - b) };
  },
  apply(state, event) {
    state.realm_default_streams = event.default_streams;
  },
});
