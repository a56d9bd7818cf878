import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { doCreateReminder, doDeleteReminder, getReminders } from "../actions/reminders.js";

export const reminderRoutes = [
  endpoint({
    method: "GET",
    path: "/reminders",
    params: {},
    handler: async ({ app, caller }) => ({ reminders: await getReminders(app.db, caller.user.id) }),
  }),

  endpoint({
    method: "POST",
    path: "/reminders",
    params: { message_id: P.int(), scheduled_delivery_timestamp: P.int(), note: P.string().optional() },
    handler: async ({ app, caller }, p) => ({
      reminder_id: await doCreateReminder(app, caller, p.message_id, p.scheduled_delivery_timestamp, p.note),
    }),
  }),

  endpoint({
    method: "DELETE",
    path: "/reminders/:reminder_id(^\\d+$)",
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteReminder(app, caller, path.reminder_id as number);
    },
  }),
];
