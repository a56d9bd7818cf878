/** The `reminders` section: the user's reminders not sent yet, the earliest first. */
import { registerStateSection } from "../state.js";
import { remindersAmong } from "../../actions/reminders.js";
import { undeliveredOf } from "./scheduled_messages.js";
import type { ApiReminder } from "../../domain/reminders.js";

const byDeliveryTime = (a: ApiReminder, b: ApiReminder) =>
  a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.reminder_id - b.reminder_id;

registerStateSection({
  name: "reminders",
  fetchTypes: ["reminders"],
  eventTypes: ["reminders"],
  fetch: async (ctx) => ({ reminders: remindersAmong(await undeliveredOf(ctx)) }),
  apply(state, event) {
    const list = state.reminders as ApiReminder[];
    if (event.op === "add") {
      const added = event.reminders as ApiReminder[];
      const others = list.filter((r) => !added.some((a) => a.reminder_id === r.reminder_id));
      state.reminders = [...others, ...added].sort(byDeliveryTime);
    } else {
      state.reminders = list.filter((r) => r.reminder_id !== event.reminder_id);
    }
  },
});
