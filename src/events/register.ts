import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { isGuest } from "../domain/roles.js";
import { FEATURE_LEVEL, ZULIP_VERSION } from "../domain/limits.js";
import { unsupportedNarrowOperator } from "../domain/event_narrow.js";
import { queueLifespan, type QueueSpec } from "./queues.js";
import { createStateContext, fetchInitialState, selectedSections, settleQueuedEvents, type RegisterOptions } from "./state.js";
import { botExtras } from "../store/bots.js";
import "./sections/index.js";

/** Checks shared by POST /register and queue creation through GET /events. */
export function checkQueueRequest(caller: Caller, narrow: QueueSpec["narrow"], allPublicStreams: boolean): void {
  const operator = unsupportedNarrowOperator(narrow);
  if (operator !== undefined) throw badRequest(`Operator ${operator} not supported.`);
  // Guests cannot read public channels they are not subscribed to.
  if (allPublicStreams && isGuest(caller.user.role)) throw badRequest("User not authorized for this query");
}

export function queueSpecFor(caller: Caller, o: Omit<QueueSpec, "userId" | "realmId" | "clientName" | "guest">): QueueSpec {
  return { userId: caller.user.id, realmId: caller.realm.id, clientName: caller.clientName, guest: isGuest(caller.user.role), ...o };
}

/** What the client asked; `allPublicStreams` left out means "as the user's default". */
export type RegisterRequest = Omit<RegisterOptions, "allPublicStreams"> & { allPublicStreams?: boolean };

/**
 * A bot's own defaults, as Zulip applies them: its default_all_public_streams when the request
 * does not say, and a narrow to its default_events_register_stream when the request has none.
 */
async function withBotDefaults(app: AppContext, caller: Caller, request: RegisterRequest): Promise<RegisterOptions> {
  const defaults = caller.user.is_bot ? (await botExtras(app.db, [caller.user.id])).get(caller.user.id) : undefined;
  const stream = defaults?.defaultEventsRegisterStream;
  return {
    ...request,
    allPublicStreams: request.allPublicStreams ?? defaults?.defaultAllPublicStreams ?? false,
    narrow: request.narrow.length === 0 && stream ? [["stream", stream.name] as const] : request.narrow,
  };
}

/**
 * How long the queue may go unpolled (0: the server's default). A client that asked with Zulip
 * 12's `idle_queue_timeout` is told what it got; others get the answer feature level 420 defines,
 * which has no such field.
 */
export interface QueueLifespanRequest {
  secs: number;
  report: boolean;
}

/**
 * POST /register: creates the queue first, then reads the initial state, then folds in whatever
 * the queue received meanwhile, so that nothing between the two is lost or counted twice.
 */
export async function doEventsRegister(
  app: AppContext,
  caller: Caller,
  request: RegisterRequest,
  lifespan: QueueLifespanRequest,
): Promise<Record<string, unknown>> {
  const options = await withBotDefaults(app, caller, request);
  checkQueueRequest(caller, options.narrow, options.allPublicStreams);
  const spec = queueSpecFor(caller, {
    eventTypes: options.eventTypes,
    narrow: options.narrow,
    applyMarkdown: options.applyMarkdown,
    clientGravatar: options.clientGravatar,
    slimPresence: options.slimPresence,
    allPublicStreams: options.allPublicStreams,
    capabilities: options.capabilities,
    lifespanSecs: lifespan.secs,
  });
  const queueId = await app.eventQueues.create(spec);
  try {
    const ctx = createStateContext(app, caller.user, caller.realm, options);
    const selected = selectedSections(ctx);
    const state = await fetchInitialState(ctx, selected);
    const lastEventId = await settleQueuedEvents(state, ctx, selected, () => app.eventQueues.pending(caller.user.id, queueId));
    return {
      queue_id: queueId,
      ...(lifespan.report && { idle_queue_timeout_secs: queueLifespan(spec, app.config.eventQueue) }),
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: FEATURE_LEVEL,
      zulip_merge_base: ZULIP_VERSION,
      ...state,
      last_event_id: lastEventId,
    };
  } catch (error) {
    await app.eventQueues.remove(caller.user.id, queueId);
    throw error;
  }
}
