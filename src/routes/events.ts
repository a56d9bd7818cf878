import { endpoint } from "../http/endpoint.js";
import { P, type Zod } from "../http/params.js";
import { checkQueueRequest, doEventsRegister, queueSpecFor } from "../events/register.js";
import { MOBILE_IDLE_QUEUE_TIMEOUT_SECS } from "../events/queues.js";

const narrowSchema = (z: Zod) => z.array(z.array(z.string()).length(2).transform((t) => [t[0], t[1]] as const));

// Unknown capabilities are dropped: clients send ones newer than this server, and the queue keeps what it is given.
const capabilitiesSchema = (z: Zod) =>
  z.object({
    notification_settings_null: z.boolean().optional(),
    bulk_message_deletion: z.boolean().optional(),
    user_avatar_url_field_optional: z.boolean().optional(),
    stream_typing_notifications: z.boolean().optional(),
    user_settings_object: z.boolean().optional(),
    linkifier_url_template: z.boolean().optional(),
    user_list_incomplete: z.boolean().optional(),
    include_deactivated_groups: z.boolean().optional(),
    archived_channels: z.boolean().optional(),
    empty_topic_name: z.boolean().optional(),
    simplified_presence_events: z.boolean().optional(),
  });

export const eventRoutes = [
  endpoint({
    method: "POST",
    path: "/register",
    params: {
      apply_markdown: P.bool().default(false),
      client_gravatar: P.bool().default(true),
      slim_presence: P.bool().default(false),
      presence_history_limit_days: P.int().optional(),
      all_public_streams: P.bool().optional(),
      include_subscribers: P.oneOf(["true", "false", "partial"]).default("false"),
      client_capabilities: P.json(capabilitiesSchema).default({ notification_settings_null: false }),
      event_types: P.stringList().optional(),
      fetch_event_types: P.stringList().optional(),
      narrow: P.json(narrowSchema).default([]),
      queue_lifespan_secs: P.int().default(0),
      idle_queue_timeout: P.json((z) => z.union([z.int().min(1), z.literal("mobile")])).optional(),
    },
    handler: async ({ app, caller }, p) =>
      doEventsRegister(
        app,
        caller,
        {
          applyMarkdown: p.apply_markdown,
          clientGravatar: p.client_gravatar,
          slimPresence: p.slim_presence,
          presenceHistoryLimitDays: p.presence_history_limit_days,
          includeSubscribers: p.include_subscribers === "partial" ? "partial" : p.include_subscribers === "true",
          capabilities: p.client_capabilities,
          narrow: p.narrow,
          allPublicStreams: p.all_public_streams,
          eventTypes: p.event_types ?? null,
          fetchEventTypes: p.fetch_event_types ?? null,
        },
        p.idle_queue_timeout === undefined
          ? { secs: p.queue_lifespan_secs, report: false }
          : { secs: p.idle_queue_timeout === "mobile" ? MOBILE_IDLE_QUEUE_TIMEOUT_SECS : p.idle_queue_timeout, report: true },
      ),
  }),

  endpoint({
    method: "GET",
    path: "/events",
    rateLimited: false,
    params: {
      queue_id: P.string().optional(),
      last_event_id: P.int().optional(),
      dont_block: P.bool().default(false),
      // Used only when no queue_id is given and a queue is created on the spot.
      apply_markdown: P.bool().default(false),
      client_gravatar: P.bool().default(false),
      slim_presence: P.bool().default(false),
      all_public_streams: P.bool().default(false),
      event_types: P.stringList().optional(),
      narrow: P.json(narrowSchema).default([]),
      lifespan_secs: P.int({ min: 0 }).default(0),
      bulk_message_deletion: P.bool().default(false),
      stream_typing_notifications: P.bool().default(false),
      user_settings_object: P.bool().default(false),
    },
    handler: async ({ app, caller, reply }, p) => {
      checkQueueRequest(caller, p.narrow, p.all_public_streams);
      const gone = new AbortController();
      reply.raw.once("close", () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      const result = await app.eventQueues.fetch({
        userId: caller.user.id,
        queueId: p.queue_id,
        lastEventId: p.last_event_id,
        dontBlock: p.dont_block,
        signal: gone.signal,
        newQueue: queueSpecFor(caller, {
          eventTypes: p.event_types ?? null,
          narrow: p.narrow,
          applyMarkdown: p.apply_markdown,
          clientGravatar: p.client_gravatar,
          slimPresence: p.slim_presence,
          allPublicStreams: p.all_public_streams,
          capabilities: {
            bulk_message_deletion: p.bulk_message_deletion,
            stream_typing_notifications: p.stream_typing_notifications,
            user_settings_object: p.user_settings_object,
          },
          lifespanSecs: p.lifespan_secs,
        }),
      });
      return { ...result };
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/events",
    rateLimited: false,
    params: { queue_id: P.string() },
    handler: async ({ app, caller }, p) => {
      await app.eventQueues.remove(caller.user.id, p.queue_id);
    },
  }),
];
