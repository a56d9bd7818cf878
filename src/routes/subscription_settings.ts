import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { streamEmailAddress, subscriptionStatus, updateSubscriptionProperties } from "../actions/subscription_settings.js";

/** A JSON boolean if the text is one, else the text itself (Zulip's `Json[bool] | str`, left to right). */
const jsonBoolOrString = (raw: string): boolean | string => (raw.trim() === "true" ? true : raw.trim() === "false" ? false : raw);

export const subscriptionSettingRoutes = [
  endpoint({
    method: "POST",
    path: "/users/me/subscriptions/properties",
    params: {
      subscription_data: P.json((z) =>
        z.array(z.object({ stream_id: z.int(), property: z.string(), value: z.union([z.boolean(), z.string()]) })),
      ),
    },
    handler: async ({ app, caller }, p) => updateSubscriptionProperties(app, caller, p.subscription_data),
  }),
  // Zulip's older one-setting form of the same request, still served (undocumented).
  endpoint({
    method: "POST",
    path: "/users/me/subscriptions/:stream_id(^\\d+$)",
    params: { property: P.string(), value: P.string() },
    handler: async ({ app, caller, path }, p) =>
      updateSubscriptionProperties(app, caller, [{ stream_id: path.stream_id as number, property: p.property, value: jsonBoolOrString(p.value) }]),
  }),
  endpoint({
    method: "GET",
    path: "/users/:user_id(^\\d+$)/subscriptions/:stream_id(^\\d+$)",
    params: {},
    handler: async ({ app, caller, path }) => subscriptionStatus(app, caller, path.user_id as number, path.stream_id as number),
  }),
  endpoint({
    method: "GET",
    path: "/streams/:stream_id(^\\d+$)/email_address",
    params: { sender_id: P.int({ min: 0 }).optional() },
    handler: async ({ app, caller, path }, p) => streamEmailAddress(app, caller, path.stream_id as number, p.sender_id),
  }),
];
