/**
 * One event queue per page: POST /register, then GET /events in a loop. Network failures retry
 * with growing pauses; BAD_EVENT_QUEUE_ID (the server restarted or dropped the queue) registers
 * again and reloads the model, since events were lost in between.
 */
import { api, ApiError } from "./api";
import { applyEvent, changed, loadRegister, model, type RegisterState } from "./model";
import { namer, placeFromLocation, show } from "./navigate";
import { notifyArrival } from "./notifications";
import { placeToHash } from "./state/hash";
import { narrowAfterMove } from "./state/moves";

const CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  empty_topic_name: true,
  simplified_presence_events: true,
  include_deactivated_groups: true,
};

let queueId = "";
let lastEventId = -1;
let generation = 0;

async function register(): Promise<void> {
  const state = await api<RegisterState>("POST", "/register", {
    apply_markdown: true,
    client_gravatar: false,
    slim_presence: true,
    include_subscribers: false,
    client_capabilities: CAPABILITIES,
  });
  queueId = state.queue_id;
  lastEventId = state.last_event_id;
  loadRegister(state);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function poll(mine: number): Promise<void> {
  let failures = 0;
  while (mine === generation) {
    try {
      const r = await api<{ events: Record<string, any>[] }>("GET", "/events", { queue_id: queueId, last_event_id: lastEventId });
      failures = 0;
      for (const e of r.events) {
        lastEventId = Math.max(lastEventId, e.id);
        const followed = e.type === "update_message" && model.view === "narrow" ? narrowAfterMove(model.narrow, e, model.selectedId) : undefined;
        applyEvent(e);
        if (e.type === "message") notifyArrival(model.messages.get(e.message.id) ?? e.message);
        if (followed) {
          // Replaced, not pushed: Back should not return to a topic that no longer exists.
          const place = { view: "narrow" as const, narrow: followed, near: model.selectedId || undefined };
          history.replaceState(null, "", placeToHash(place, namer));
          show(place);
        }
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === "BAD_EVENT_QUEUE_ID") {
        await start();
        return;
      }
      failures++;
      model.error = failures > 1 ? "Reconnecting…" : "";
      changed();
      await pause(Math.min(30000, 1000 * 2 ** Math.min(failures, 5)));
    }
    if (model.error && failures === 0) {
      model.error = "";
      changed();
    }
  }
}

/** Registers (again) and opens the narrow in view. */
export async function start(): Promise<void> {
  const mine = ++generation;
  for (let attempt = 0; ; attempt++) {
    try {
      await register();
      break;
    } catch (err) {
      model.error = `Cannot reach the server: ${(err as Error).message}`;
      changed();
      await pause(Math.min(30000, 1000 * 2 ** Math.min(attempt, 5)));
    }
  }
  model.error = "";
  // A place named by name (a pasted link) needs the channels and people from register.
  show(placeFromLocation());
  void poll(mine);
}
